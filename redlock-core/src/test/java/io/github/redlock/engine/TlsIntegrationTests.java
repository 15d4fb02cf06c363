package io.github.redlock.engine;

import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.embedded.TestCertificates;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * TLS from the plain-Java builder (issue 13, item 3), against TLS-only nodes (no plain
 * port) with certificates from a private CA: trust given as {@link SslOptions}, mutual
 * TLS, host name verification that refuses a certificate for another name, and a
 * {@code verifyPeer} weaker than full verification warned about. Needs a
 * {@code redis-server} built with TLS: the kit fails, saying how to get one, if it is
 * not.
 */
class TlsIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.tlsNodes(3, true);

	private final LogCapture log = LogCapture.of(Level.INFO, RedlockRegistry.class);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
		this.log.close();
	}

	@Test
	void locksOverMutualTlsWithAPrivateCa() throws Exception {
		assertThat(fleet.uris()).allSatisfy((uri) -> assertThat(uri).startsWith("rediss://"));
		this.registry = registry(fleet.uris(), ssl(fleet.certificates(), true));
		try (Lease lease = this.registry.acquire("tls", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
			assertThat(lease.isHeld()).isTrue();
		}
		assertThat(this.registry.checkNodes()).allSatisfy((status) -> {
			assertThat(status.usable()).isTrue();
			assertThat(status.warning()).isNull();
		});
	}

	@Test
	void sslTrueMakesPlainUrisUseTls() throws Exception {
		List<String> plain = fleet.uris().stream().map((uri) -> uri.replace("rediss://", "redis://")).toList();
		this.registry = TestRegistries.builder(plain)
			.ssl(true)
			.sslOptions(ssl(fleet.certificates(), true))
			.build()
			.start();
		assertThat(this.registry.toString()).contains("rediss://").doesNotContain("redis://1");
		try (Lease lease = this.registry.acquire("tls", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void withoutTheClientCertificateTheNodesRefuse() throws Exception {
		this.registry = registry(fleet.uris(), ssl(fleet.certificates(), false));
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> this.registry.acquire("tls", Duration.ofSeconds(5), Duration.ofSeconds(3)));
		assertThat(failure.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM);
	}

	@Test
	void withoutTrustInThePrivateCaTheCertificateIsRefusedAndSaysWhy() {
		// the JVM's default trust store: no private CA
		this.registry = TestRegistries.builder(fleet).build().start();
		LockAcquisitionException failure = catchThrowableOfType(LockAcquisitionException.class,
				() -> this.registry.acquire("tls", Duration.ofSeconds(5), Duration.ofSeconds(3)));
		assertThat(failure.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM);
		assertThat(failure).hasMessageContaining("certification path")
			.hasMessageContaining("The node's TLS certificate is not trusted: trust its CA");
	}

	@Test
	void hostNameVerificationRefusesACertificateForAnotherNameUnlessTheUriWaivesIt() throws Exception {
		TestCertificates certificates = fleet.certificates();
		try (RedisNode other = RedisNode.startTls("other-host",
				new RedisNode.Tls(certificates, false, RedisNode.ServerCertificate.OTHER_HOST))) {
			List<String> uris = List.of(other.uri(), fleet.uris().get(0), fleet.uris().get(1));
			this.registry = registry(uris, ssl(certificates, true));
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.registry.checkNodes().get(0).problem())
					.contains("No subject alternative names matching IP address 127.0.0.1")
					.contains("certificate is for another host name"));
			this.registry.close();
			// verifyPeer=CA: trusted CA, any name; warned at start-up and in health
			this.registry = registry(List.of(other.uri() + "?verifyPeer=CA", uris.get(1), uris.get(2)),
					ssl(certificates, true));
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.registry.checkNodes().get(0).usable()).isTrue());
			assertThat(this.registry.checkNodes().get(0).warning()).contains("does not verify the host name");
			assertThat(this.registry.checkNodes().get(1).warning()).isNull();
			assertThat(this.log.lines()).filteredOn((line) -> line.startsWith("WARNING"))
				.singleElement()
				.asString()
				.contains(other.uri(), "verifyPeer=CA", "Remove verifyPeer");
		}
	}

	private static RedlockRegistry registry(List<String> uris, SslOptions ssl) {
		return TestRegistries.builder(uris).sslOptions(ssl).build().start();
	}

	static SslOptions ssl(TestCertificates certificates, boolean clientCertificate) throws Exception {
		char[] password = certificates.storePassword().toCharArray();
		TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		trust.init(load(certificates.trustStore(), password));
		SslOptions.Builder options = SslOptions.builder().jdkSslProvider().trustManager(trust);
		if (clientCertificate) {
			KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
			keys.init(load(certificates.clientKeyStore(), password), password);
			options.keyManager(keys);
		}
		return options.build();
	}

	private static KeyStore load(java.nio.file.Path path, char[] password) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(path)) {
			store.load(in, password);
		}
		return store;
	}

}
