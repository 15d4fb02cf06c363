package io.github.redlock.embedded;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The files {@link TestCertificates} makes, read back the way servers and Spring Boot
 * read them.
 */
class TestCertificatesTests {

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
	void theCaIsACaThatSignedItself() throws Exception {
		List<X509Certificate> ca = readChain(certificates.caCertificate());
		assertThat(ca).hasSize(1);
		assertThat(ca.get(0).getSubjectX500Principal().getName()).isEqualTo("CN=redlock-test-ca");
		assertThat(ca.get(0).getBasicConstraints()).isGreaterThanOrEqualTo(0);
		ca.get(0).verify(ca.get(0).getPublicKey());
		ca.get(0).checkValidity();
	}

	@Test
	void theServerCertificateNamesLocalhostAndLoopbackAndIsSignedByTheCa() throws Exception {
		List<X509Certificate> chain = readChain(certificates.serverCertificate());
		assertThat(chain).hasSize(2);
		assertThat(chain.get(0).getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
		assertThat(subjectAlternativeNames(chain.get(0))).containsExactlyInAnyOrder("2:localhost", "7:127.0.0.1");
		assertThat(chain.get(0).getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
		assertSignedByTheCa(chain);
	}

	@Test
	void theOtherHostCertificateNamesOnlyTheOtherHost() throws Exception {
		List<X509Certificate> chain = readChain(certificates.otherHostCertificate());
		assertThat(subjectAlternativeNames(chain.get(0))).containsExactly("2:not-this-host.example");
		assertSignedByTheCa(chain);
	}

	@Test
	void theClientCertificateIsForClients() throws Exception {
		List<X509Certificate> chain = readChain(certificates.clientCertificate());
		assertThat(chain.get(0).getSubjectX500Principal().getName()).isEqualTo("CN=redlock-client");
		assertThat(chain.get(0).getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
		assertSignedByTheCa(chain);
	}

	@Test
	void keysAreUnencryptedPkcs8PemMatchingTheirCertificatesAndTheirKeyStores() throws Exception {
		assertKeyMatches(certificates.serverKey(), certificates.serverCertificate(), certificates.serverKeyStore(),
				"server");
		assertKeyMatches(certificates.otherHostKey(), certificates.otherHostCertificate(),
				certificates.otherHostKeyStore(), "other-host");
		assertKeyMatches(certificates.clientKey(), certificates.clientCertificate(), certificates.clientKeyStore(),
				"client");
	}

	@Test
	void theTrustStoreHoldsOnlyTheCa() throws Exception {
		KeyStore trustStore = loadStore(certificates.trustStore());
		assertThat(Collections.list(trustStore.aliases())).containsExactly("ca");
		assertThat(trustStore.isCertificateEntry("ca")).isTrue();
		assertThat(trustStore.getCertificate("ca")).isEqualTo(readChain(certificates.caCertificate()).get(0));
	}

	@Test
	void sslContextsCanBeMadeWithAndWithoutTheClientCertificate() {
		assertThat(certificates.sslContext(true).getProtocol()).isEqualTo("TLS");
		assertThat(certificates.sslContext(false).getProtocol()).isEqualTo("TLS");
	}

	@Test
	void closeDeletesTheDirectory() {
		TestCertificates others = TestCertificates.generate();
		Path directory = others.directory();
		assertThat(directory).isDirectory();
		assertThat(others.directory()).isNotEqualTo(certificates.directory());
		others.close();
		assertThat(directory).doesNotExist();
		others.close();
	}

	private static void assertSignedByTheCa(List<X509Certificate> chain) throws Exception {
		X509Certificate ca = readChain(certificates.caCertificate()).get(0);
		assertThat(chain.get(chain.size() - 1)).isEqualTo(ca);
		chain.get(0).verify(ca.getPublicKey());
		chain.get(0).checkValidity();
		assertThat(chain.get(0).getBasicConstraints()).isEqualTo(-1);
	}

	private static void assertKeyMatches(Path keyFile, Path certificateFile, Path keyStoreFile, String alias)
			throws Exception {
		String pem = Files.readString(keyFile);
		assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
		byte[] der = Base64.getMimeDecoder()
			.decode(pem.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", ""));
		PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
		KeyStore keyStore = loadStore(keyStoreFile);
		assertThat(Collections.list(keyStore.aliases())).containsExactly(alias);
		assertThat(keyStore.getKey(alias, certificates.storePassword().toCharArray())).isEqualTo(key);
		Certificate[] chain = keyStore.getCertificateChain(alias);
		assertThat(chain).containsExactlyElementsOf(readChain(certificateFile));
		// the key signs what the certificate's public key verifies
		Signature signer = Signature.getInstance("SHA256withECDSA");
		signer.initSign(key);
		signer.update(new byte[] { 1, 2, 3 });
		byte[] signature = signer.sign();
		Signature verifier = Signature.getInstance("SHA256withECDSA");
		verifier.initVerify(chain[0].getPublicKey());
		verifier.update(new byte[] { 1, 2, 3 });
		assertThat(verifier.verify(signature)).isTrue();
	}

	static List<X509Certificate> readChain(Path file) throws Exception {
		try (InputStream in = Files.newInputStream(file)) {
			Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509")
				.generateCertificates(in);
			return certificates.stream().map(X509Certificate.class::cast).toList();
		}
	}

	static List<String> subjectAlternativeNames(X509Certificate certificate) throws Exception {
		return certificate.getSubjectAlternativeNames()
			.stream()
			.map((name) -> name.get(0) + ":" + name.get(1))
			.toList();
	}

	private static KeyStore loadStore(Path file) throws Exception {
		KeyStore keyStore = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(file)) {
			keyStore.load(in, certificates.storePassword().toCharArray());
		}
		return keyStore;
	}

}
