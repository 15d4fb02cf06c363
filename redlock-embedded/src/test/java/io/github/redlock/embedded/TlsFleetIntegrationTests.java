package io.github.redlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.jks.JksSslStoreBundle;
import org.springframework.boot.ssl.jks.JksSslStoreDetails;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A fleet of TLS-only nodes that require the client certificate: everything that works on
 * plain nodes works on them, and nothing gets in without TLS and the certificate.
 */
class TlsFleetIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.tlsNodes(2, true);

	@Test
	void nodesListenOnlyOnTlsAndAnswerTheirOwnCalls() {
		assertThat(fleet.uris()).hasSize(2)
			.doesNotHaveDuplicates()
			.allMatch((uri) -> uri.startsWith("rediss://127.0.0.1:"));
		for (RedisNode node : fleet.fleet().nodes()) {
			assertThat(node.isTls()).isTrue();
			assertThat(node.call("PING")).isEqualTo("PONG");
			assertThat(node.call("CONFIG", "GET", "port")).isEqualTo(List.of("port", "0"));
			assertThat(node.call("CONFIG", "GET", "tls-port"))
				.isEqualTo(List.of("tls-port", String.valueOf(node.port())));
			assertThat(node.call("CONFIG", "GET", "tls-auth-clients")).isEqualTo(List.of("tls-auth-clients", "yes"));
		}
	}

	@Test
	void aClientWithTheClientCertificateGetsIn() throws IOException {
		assertThat(ping(fleet.node(0).port(), fleet.certificates().sslContext(true))).isEqualTo("PONG");
	}

	@Test
	void aPlainTextClientGetsNoAnswer() {
		assertThatThrownBy(() -> ping(fleet.node(0).port(), null)).isInstanceOf(IOException.class);
		// and the node is none the worse for it
		assertThat(fleet.node(0).call("PING")).isEqualTo("PONG");
	}

	@Test
	void aTlsClientWithoutTheClientCertificateIsRefused() {
		assertThatThrownBy(() -> ping(fleet.node(1).port(), fleet.certificates().sslContext(false)))
			.isInstanceOf(IOException.class);
		assertThat(fleet.node(1).call("PING")).isEqualTo("PONG");
	}

	@Test
	void springBootReadsThePemFilesAndTheKeyStores() throws IOException {
		TestCertificates certificates = fleet.certificates();
		PemSslStoreBundle pem = new PemSslStoreBundle(
				PemSslStoreDetails.forCertificate(certificates.clientCertificate().toUri().toString())
					.withPrivateKey(certificates.clientKey().toUri().toString()),
				PemSslStoreDetails.forCertificate(certificates.caCertificate().toUri().toString()));
		assertThat(ping(fleet.node(0).port(), SslBundle.of(pem).createSslContext())).isEqualTo("PONG");
		JksSslStoreBundle pkcs12 = new JksSslStoreBundle(
				new JksSslStoreDetails("PKCS12", null, certificates.clientKeyStore().toUri().toString(),
						certificates.storePassword()),
				new JksSslStoreDetails("PKCS12", null, certificates.trustStore().toUri().toString(),
						certificates.storePassword()));
		assertThat(ping(fleet.node(1).port(), SslBundle.of(pkcs12).createSslContext())).isEqualTo("PONG");
	}

	@Test
	void aKilledNodeStartsAgainEmptyOnTheSamePortStillOnlyOnTls() {
		RedisNode node = fleet.node(0);
		int port = node.port();
		node.call("SET", "k", "v");
		node.kill();
		assertThat(node.isRunning()).isFalse();
		assertThatThrownBy(() -> node.call("PING")).isInstanceOf(UncheckedIOException.class);
		node.start();
		assertThat(node.port()).isEqualTo(port);
		assertThat(node.uri()).isEqualTo("rediss://127.0.0.1:" + port);
		assertThat(node.call("GET", "k")).isNull();
		assertThat(node.call("CONFIG", "GET", "port")).isEqualTo(List.of("port", "0"));
		assertThatThrownBy(() -> ping(port, null)).isInstanceOf(IOException.class);
	}

	@Test
	void restartsKeepOrLoseDataOverTls() {
		RedisNode node = fleet.node(1);
		node.call("SET", "kept", "v", "PX", "60000");
		long pidBefore = node.pid();
		node.restart(true);
		assertThat(node.pid()).isNotEqualTo(pidBefore);
		assertThat(node.call("GET", "kept")).isEqualTo("v");
		node.restart(false);
		assertThat(node.call("GET", "kept")).isNull();
	}

	@Test
	void aPausedNodeAnswersNothingUntilResumed() throws Exception {
		RedisNode node = fleet.node(0);
		node.pause();
		CompletableFuture<Object> ping = CompletableFuture.supplyAsync(() -> node.call("PING"));
		assertThatThrownBy(() -> ping.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
		node.resume();
		assertThat(ping.get(10, TimeUnit.SECONDS)).isEqualTo("PONG");
	}

	@Test
	void aSlowNodeDelaysCommands() {
		RedisNode node = fleet.node(1);
		node.slow(Duration.ofMillis(200));
		long start = System.nanoTime();
		for (int i = 0; i < 3; i++) {
			node.call("PING");
		}
		long slowMillis = (System.nanoTime() - start) / 1_000_000;
		node.unslow();
		assertThat(slowMillis).isGreaterThan(100);
	}

	@Test
	void aProxyForwardsTlsAsItIs() throws IOException {
		try (FleetProxy proxy = fleet.fleet().proxy("tls-client")) {
			assertThat(proxy.uris()).allMatch((uri) -> uri.startsWith("rediss://127.0.0.1:"));
			assertThat(ping(proxy.node(0).port(), fleet.certificates().sslContext(true))).isEqualTo("PONG");
		}
	}

	@Test
	void onlyTlsFleetsHaveCertificates() {
		assertThat(fleet.certificates().clientKeyStore()).isRegularFile();
		assertThatIllegalStateException().isThrownBy(() -> RedisFleetExtension.nodes(1).certificates())
			.withMessageContaining("tlsNodes");
	}

	private static Object ping(int port, SSLContext tls) throws IOException {
		try (RespConnection connection = new RespConnection(port, 2_000, tls)) {
			return connection.call("PING");
		}
	}

}
