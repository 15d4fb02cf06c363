package io.github.redlock.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Certificates for TLS tests, made fresh in a temporary directory by the JDK's own
 * {@code keytool}, so that nothing but a JDK is needed: a CA, a server certificate for
 * {@code localhost} and {@code 127.0.0.1}, a server certificate for another host only
 * (for tests in which hostname verification must refuse it), and a client certificate for
 * mutual TLS, all signed by the CA and valid from a day ago for a few days.
 * <p>
 * Each certificate comes as a PEM chain ({@code *.crt}: the certificate, then the CA's),
 * its private key as unencrypted PKCS#8 PEM ({@code *.key}), and a PKCS12 key store that
 * holds both under one alias ({@code server}, {@code other-host} or {@code client}); a
 * PKCS12 trust store holds the CA under the alias {@code ca}. Every store and key
 * protected by a password has the {@link #storePassword() store password}. Keys are EC
 * P-256.
 * <p>
 * Generation takes about two seconds (ten short {@code keytool} runs: the CA's, then
 * three for each other certificate, the three certificates in parallel), so make the
 * certificates once per test class and {@link #close() close} them after the nodes that
 * use them. Certificates left open are deleted when the JVM exits.
 *
 * @author redlock contributors
 */
public final class TestCertificates implements AutoCloseable {

	private static final String PASSWORD = "redlock-test";

	private static final Path KEYTOOL = Path.of(System.getProperty("java.home"), "bin", "keytool");

	private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

	private static final Set<TestCertificates> OPEN = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> OPEN.forEach(TestCertificates::close), "redlock-certificates-reaper"));
	}

	private final Path directory;

	private volatile boolean closed;

	private TestCertificates(Path directory) {
		this.directory = directory;
	}

	/**
	 * Generates a CA and the certificates it signs in a new temporary directory.
	 * @return the certificates
	 * @throws IllegalStateException if {@code keytool} fails
	 */
	public static TestCertificates generate() {
		Path directory;
		try {
			directory = NodeDirectories.create("tls");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for test certificates", ex);
		}
		TestCertificates certificates = new TestCertificates(directory);
		OPEN.add(certificates);
		try {
			certificates.generateAll();
		}
		catch (RuntimeException ex) {
			certificates.close();
			throw ex;
		}
		return certificates;
	}

	private void generateAll() {
		keytool("make the CA", List.of(List.of("-genkeypair", "-alias", "ca", "-keystore", "ca.p12", "-dname",
				"CN=redlock-test-ca", "-ext", "bc:c", "-validity", "5")));
		ExecutorService executor = Executors.newFixedThreadPool(3, (task) -> {
			Thread thread = new Thread(task, "redlock-keytool");
			thread.setDaemon(true);
			return thread;
		});
		try {
			List<Future<?>> leaves = new ArrayList<>();
			leaves.add(executor
				.submit(() -> signLeaf("server", "CN=localhost", "san=dns:localhost,ip:127.0.0.1", "eku=serverAuth")));
			leaves.add(executor.submit(() -> signLeaf("other-host", "CN=not-this-host.example",
					"san=dns:not-this-host.example", "eku=serverAuth")));
			leaves.add(executor.submit(() -> signLeaf("client", "CN=redlock-client", "eku=clientAuth")));
			for (Future<?> leaf : leaves) {
				await(leaf);
			}
		}
		finally {
			executor.shutdownNow();
		}
		X509Certificate ca;
		try {
			ca = (X509Certificate) load(this.directory.resolve("ca.p12")).getCertificate("ca");
			writePem(caCertificate(), "CERTIFICATE", encoded(ca));
			KeyStore trustStore = KeyStore.getInstance("PKCS12");
			trustStore.load(null, null);
			trustStore.setCertificateEntry("ca", ca);
			save(trustStore, trustStore());
		}
		catch (GeneralSecurityException | IOException ex) {
			throw new IllegalStateException("Could not write the trust store", ex);
		}
		for (String name : List.of("server", "other-host", "client")) {
			finishLeaf(name, ca);
		}
		delete(this.directory.resolve("ca.p12"));
	}

	private static void await(Future<?> task) {
		try {
			task.get();
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new IllegalStateException("Could not generate a certificate", ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while generating certificates", ex);
		}
	}

	/**
	 * Makes a key pair in {@code name.p12} and has the CA sign it into
	 * {@code name.signed.pem}.
	 */
	private void signLeaf(String name, String distinguishedName, String... extensions) {
		keytool("make the " + name + " key", List.of(List.of("-genkeypair", "-alias", name, "-keystore", name + ".p12",
				"-dname", distinguishedName, "-validity", "5")));
		List<String> sign = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-rfc",
				"-outfile", name + ".signed.pem", "-startdate", "-1d", "-validity", "4"));
		for (String extension : extensions) {
			sign.addAll(List.of("-ext", extension));
		}
		keytool("sign the " + name + " certificate",
				List.of(List.of("-certreq", "-alias", name, "-keystore", name + ".p12"), sign));
	}

	/**
	 * Puts the signed chain in the leaf's key store and writes its PEM files.
	 */
	private void finishLeaf(String name, X509Certificate ca) {
		Path keyStoreFile = this.directory.resolve(name + ".p12");
		Path signed = this.directory.resolve(name + ".signed.pem");
		try (InputStream in = Files.newInputStream(signed)) {
			X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509")
				.generateCertificate(in);
			KeyStore keyStore = load(keyStoreFile);
			PrivateKey key = (PrivateKey) keyStore.getKey(name, PASSWORD.toCharArray());
			keyStore.setKeyEntry(name, key, PASSWORD.toCharArray(), new Certificate[] { certificate, ca });
			save(keyStore, keyStoreFile);
			writePem(this.directory.resolve(name + ".crt"), "CERTIFICATE", encoded(certificate), encoded(ca));
			writePem(this.directory.resolve(name + ".key"), "PRIVATE KEY", key.getEncoded());
		}
		catch (GeneralSecurityException | IOException ex) {
			throw new IllegalStateException("Could not write the " + name + " certificate", ex);
		}
		delete(signed);
	}

	/**
	 * Runs {@code keytool} commands as a pipeline (each one's output is the next one's
	 * input), with the password and key type every command here shares.
	 */
	private void keytool(String step, List<List<String>> commands) {
		List<ProcessBuilder> builders = new ArrayList<>();
		List<Path> errors = new ArrayList<>();
		for (int i = 0; i < commands.size(); i++) {
			List<String> command = new ArrayList<>(List.of(KEYTOOL.toString(),
					// a short-lived JVM: these flags cut its start-up by a third
					"-J-XX:+IgnoreUnrecognizedVMOptions", "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
			command.addAll(commands.get(i));
			command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD));
			if (commands.get(i).get(0).equals("-genkeypair")) {
				command.addAll(List.of("-keyalg", "EC", "-keysize", "256", "-startdate", "-1d"));
			}
			Path error = this.directory.resolve(step.replace(' ', '-') + "-" + i + ".err");
			errors.add(error);
			ProcessBuilder builder = new ProcessBuilder(command).directory(this.directory.toFile())
				.redirectError(error.toFile());
			if (i == commands.size() - 1) {
				builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
			}
			builders.add(builder);
		}
		List<Process> processes = List.of();
		try {
			processes = ProcessBuilder.startPipeline(builders);
			processes.get(0).getOutputStream().close();
			for (int i = 0; i < processes.size(); i++) {
				Process process = processes.get(i);
				if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
					throw new IllegalStateException("keytool did not " + step + " within " + KEYTOOL_TIMEOUT_SECONDS
							+ "s: " + String.join(" ", builders.get(i).command()));
				}
				if (process.exitValue() != 0) {
					throw new IllegalStateException("keytool could not " + step + " (exit " + process.exitValue()
							+ "): " + String.join(" ", builders.get(i).command()) + ": "
							+ Files.readString(errors.get(i)).trim());
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run " + KEYTOOL + " to " + step, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running keytool to " + step, ex);
		}
		finally {
			processes.forEach(Process::destroyForcibly);
		}
		errors.forEach(TestCertificates::delete);
	}

	private static KeyStore load(Path file) {
		try (InputStream in = Files.newInputStream(file)) {
			KeyStore keyStore = KeyStore.getInstance("PKCS12");
			keyStore.load(in, PASSWORD.toCharArray());
			return keyStore;
		}
		catch (GeneralSecurityException | IOException ex) {
			throw new IllegalStateException("Could not load " + file, ex);
		}
	}

	private static void save(KeyStore keyStore, Path file) throws GeneralSecurityException, IOException {
		try (OutputStream out = Files.newOutputStream(file)) {
			keyStore.store(out, PASSWORD.toCharArray());
		}
	}

	private static byte[] encoded(Certificate certificate) {
		try {
			return certificate.getEncoded();
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("Could not encode " + certificate, ex);
		}
	}

	private static void writePem(Path file, String type, byte[]... blocks) {
		Base64.Encoder encoder = Base64.getMimeEncoder(64, new byte[] { '\n' });
		StringBuilder pem = new StringBuilder();
		for (byte[] block : blocks) {
			pem.append("-----BEGIN ").append(type).append("-----\n");
			pem.append(encoder.encodeToString(block)).append('\n');
			pem.append("-----END ").append(type).append("-----\n");
		}
		try {
			Files.writeString(file, pem, StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + file, ex);
		}
	}

	private static void delete(Path file) {
		try {
			Files.deleteIfExists(file);
		}
		catch (IOException ex) {
			// best effort: it is a temporary directory
		}
	}

	/**
	 * Returns the directory that holds every file.
	 * @return the directory
	 */
	public Path directory() {
		return this.directory;
	}

	/**
	 * Returns the CA's certificate, in PEM.
	 * @return the {@code ca.crt} file
	 */
	public Path caCertificate() {
		return this.directory.resolve("ca.crt");
	}

	/**
	 * Returns the PKCS12 trust store that holds the CA's certificate under the alias
	 * {@code ca}.
	 * @return the {@code truststore.p12} file
	 */
	public Path trustStore() {
		return this.directory.resolve("truststore.p12");
	}

	/**
	 * Returns the chain of the server certificate for {@code localhost} (subject
	 * alternative names {@code DNS:localhost} and {@code IP:127.0.0.1}), in PEM: the
	 * certificate, then the CA's.
	 * @return the {@code server.crt} file
	 */
	public Path serverCertificate() {
		return this.directory.resolve("server.crt");
	}

	/**
	 * Returns the private key of the {@link #serverCertificate() server certificate}, as
	 * unencrypted PKCS#8 PEM.
	 * @return the {@code server.key} file
	 */
	public Path serverKey() {
		return this.directory.resolve("server.key");
	}

	/**
	 * Returns a PKCS12 key store holding the {@link #serverKey() server key} and
	 * {@link #serverCertificate() its chain} under the alias {@code server}.
	 * @return the {@code server.p12} file
	 */
	public Path serverKeyStore() {
		return this.directory.resolve("server.p12");
	}

	/**
	 * Returns the chain of a server certificate for another host only (subject
	 * alternative name {@code DNS:not-this-host.example}), in PEM: signed by the same CA,
	 * so that only hostname verification refuses it.
	 * @return the {@code other-host.crt} file
	 */
	public Path otherHostCertificate() {
		return this.directory.resolve("other-host.crt");
	}

	/**
	 * Returns the private key of the {@link #otherHostCertificate() other host's
	 * certificate}, as unencrypted PKCS#8 PEM.
	 * @return the {@code other-host.key} file
	 */
	public Path otherHostKey() {
		return this.directory.resolve("other-host.key");
	}

	/**
	 * Returns a PKCS12 key store holding the {@link #otherHostKey() other host's key} and
	 * {@link #otherHostCertificate() its chain} under the alias {@code other-host}.
	 * @return the {@code other-host.p12} file
	 */
	public Path otherHostKeyStore() {
		return this.directory.resolve("other-host.p12");
	}

	/**
	 * Returns the chain of the client certificate ({@code CN=redlock-client}) for mutual
	 * TLS, in PEM: the certificate, then the CA's.
	 * @return the {@code client.crt} file
	 */
	public Path clientCertificate() {
		return this.directory.resolve("client.crt");
	}

	/**
	 * Returns the private key of the {@link #clientCertificate() client certificate}, as
	 * unencrypted PKCS#8 PEM.
	 * @return the {@code client.key} file
	 */
	public Path clientKey() {
		return this.directory.resolve("client.key");
	}

	/**
	 * Returns a PKCS12 key store holding the {@link #clientKey() client key} and
	 * {@link #clientCertificate() its chain} under the alias {@code client}.
	 * @return the {@code client.p12} file
	 */
	public Path clientKeyStore() {
		return this.directory.resolve("client.p12");
	}

	/**
	 * Returns the password of every key store, trust store and key in them.
	 * @return the password
	 */
	public String storePassword() {
		return PASSWORD;
	}

	/**
	 * Returns a new TLS context that trusts the CA and, if asked, presents the client
	 * certificate. It does not verify host names by itself: a client that wants that sets
	 * an endpoint identification algorithm on its sockets or engines.
	 * @param withClientCertificate whether to present the client certificate
	 * @return the context
	 */
	public SSLContext sslContext(boolean withClientCertificate) {
		try {
			TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			trust.init(load(trustStore()));
			KeyManagerFactory keys = null;
			if (withClientCertificate) {
				keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
				keys.init(load(clientKeyStore()), PASSWORD.toCharArray());
			}
			SSLContext context = SSLContext.getInstance("TLS");
			context.init((keys != null) ? keys.getKeyManagers() : null, trust.getTrustManagers(), null);
			return context;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("Could not make a TLS context from " + this.directory, ex);
		}
	}

	/**
	 * Deletes the directory and every file in it. Close the certificates only once no
	 * node uses them: a node reads them again each time it starts.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		OPEN.remove(this);
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach(TestCertificates::delete);
		}
		catch (IOException ex) {
			// best effort: it is a temporary directory
		}
	}

	@Override
	public String toString() {
		return "TestCertificates[" + this.directory + "]";
	}

}
