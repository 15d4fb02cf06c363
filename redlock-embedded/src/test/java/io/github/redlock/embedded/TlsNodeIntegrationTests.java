package io.github.redlock.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

import io.github.redlock.embedded.RedisNode.ServerCertificate;
import io.github.redlock.embedded.RedisNode.Tls;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * TLS-only nodes started one by one: which certificates they present and ask for, and
 * what happens on a {@code redis-server} built without TLS.
 */
class TlsNodeIntegrationTests {

	private static TestCertificates certificates;

	@BeforeAll
	static void generate() {
		certificates = TestCertificates.generate();
	}

	@AfterAll
	static void close() {
		if (certificates != null) {
			certificates.close();
		}
	}

	@Test
	void aNodeThatDoesNotRequireAClientCertificateAnswersClientsWithoutOne() throws IOException {
		try (RedisNode node = RedisNode.startTls("tls-open", certificates, false)) {
			assertThat(node.isTls()).isTrue();
			assertThat(node.uri()).isEqualTo("rediss://127.0.0.1:" + node.port());
			try (RespConnection connection = new RespConnection(node.port(), 10_000, certificates.sslContext(false))) {
				assertThat(connection.call("PING")).isEqualTo("PONG");
			}
			assertThat(node.call("CONFIG", "GET", "tls-auth-clients")).isEqualTo(List.of("tls-auth-clients", "no"));
		}
	}

	@Test
	void hostnameVerificationAcceptsTheLocalhostCertificateForTheNodesUriHost() throws IOException {
		try (RedisNode node = RedisNode.startTls("tls-localhost", certificates, true);
				SSLSocket socket = verifyingSocket(certificates.sslContext(true), node.port())) {
			socket.startHandshake();
			X509Certificate peer = (X509Certificate) socket.getSession().getPeerCertificates()[0];
			assertThat(peer.getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
		}
	}

	@Test
	void theOtherHostCertificateIsServedWhenChosenAndHostnameVerificationRefusesIt() throws Exception {
		try (RedisNode node = RedisNode.startTls("tls-other-host",
				new Tls(certificates, true, ServerCertificate.OTHER_HOST))) {
			// the kit's own connections do not verify host names
			assertThat(node.call("PING")).isEqualTo("PONG");
			try (SSLSocket socket = (SSLSocket) certificates.sslContext(true)
				.getSocketFactory()
				.createSocket("127.0.0.1", node.port())) {
				socket.setSoTimeout(10_000);
				socket.startHandshake();
				X509Certificate peer = (X509Certificate) socket.getSession().getPeerCertificates()[0];
				assertThat(TestCertificatesTests.subjectAlternativeNames(peer))
					.containsExactly("2:not-this-host.example");
			}
			try (SSLSocket socket = verifyingSocket(certificates.sslContext(true), node.port())) {
				assertThatThrownBy(socket::startHandshake).isInstanceOf(SSLHandshakeException.class)
					.hasMessageContaining("127.0.0.1");
			}
		}
	}

	@Test
	void aBinaryWithoutTlsIsRefusedWithAMessageThatSaysHowToGetOne(@TempDir Path directory) throws IOException {
		Path fake = directory.resolve("redis-server-without-tls");
		Files.writeString(fake,
				String.join("\n", "#!/bin/sh", "if [ \"$1\" = --version ]; then",
						"  echo 'Redis server v=6.2.6 sha=00000000:0 malloc=libc bits=64 build=0'", "  exit 0", "fi",
						"echo \"Unrecognized option '$3'\"", "exit 1", ""));
		Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
		RedisServerBinary binary = RedisServerBinary.of(fake, "test");
		assertThat(binary.supportsTls()).isFalse();
		assertThatIllegalStateException()
			.isThrownBy(
					() -> new RedisNode("no-tls", binary, new Tls(certificates, false, ServerCertificate.LOCALHOST)))
			.withMessageContaining(fake.toString())
			.withMessageContaining("built without TLS")
			.withMessageContaining("Unrecognized option")
			.withMessageContaining("install Debian's redis-server (apt-get install redis-server) or set "
					+ "REDLOCK_REDIS_SERVER to a redis-server 6+ built with BUILD_TLS=yes");
	}

	@Test
	void theBinaryInUseSupportsTls() {
		// the TLS tests need it: a binary without TLS fails them with the message above
		assertThat(RedisServerBinary.get().supportsTls()).as(RedisServerBinary.get().toString()).isTrue();
	}

	@Test
	void theBundledBinaryEitherRunsATlsNodeOrSaysWhyNot() throws IOException {
		RedisServerBinary bundled = RedisServerBinary.bundled();
		Tls tls = new Tls(certificates, true, ServerCertificate.LOCALHOST);
		if (!bundled.supportsTls()) {
			assertThatIllegalStateException().isThrownBy(() -> new RedisNode("bundled", bundled, tls))
				.withMessageContaining("BUILD_TLS=yes");
			return;
		}
		try (RedisNode node = new RedisNode("bundled", bundled, tls)) {
			node.start();
			assertThat(node.call("PING")).isEqualTo("PONG");
			assertThat((String) node.call("INFO", "server")).contains("redis_version:6.");
		}
	}

	private static SSLSocket verifyingSocket(SSLContext context, int port) throws IOException {
		SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
		socket.setSoTimeout(10_000);
		SSLParameters parameters = socket.getSSLParameters();
		parameters.setEndpointIdentificationAlgorithm("HTTPS");
		socket.setSSLParameters(parameters);
		return socket;
	}

}
