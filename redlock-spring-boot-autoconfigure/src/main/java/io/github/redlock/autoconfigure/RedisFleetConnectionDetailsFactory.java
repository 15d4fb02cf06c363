package io.github.redlock.autoconfigure;

import java.util.List;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.TestCertificates;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleKey;
import org.springframework.boot.ssl.jks.JksSslStoreBundle;
import org.springframework.boot.ssl.jks.JksSslStoreDetails;
import org.springframework.util.ClassUtils;

/**
 * {@link RedlockConnectionDetails} for a running {@link RedisFleet} of
 * {@code redlock-embedded} (which a test's {@code @RedlockServiceConnection} fleet is):
 * its nodes, and for a TLS fleet an SSL bundle that trusts its CA and presents its client
 * certificate. Found through Spring Boot's {@code ConnectionDetailsFactories}; needs
 * {@code redlock-embedded} on the classpath, as tests have it.
 *
 * @author redlock contributors
 */
class RedisFleetConnectionDetailsFactory implements ConnectionDetailsFactory<RedisFleet, RedlockConnectionDetails> {

	private static final String FLEET = "io.github.redlock.embedded.RedisFleet";

	RedisFleetConnectionDetailsFactory() {
		// without redlock-embedded, fail here, where the factories loader skips a factory
		// quietly, rather than when it reads the generic types
		if (!ClassUtils.isPresent(FLEET, RedisFleetConnectionDetailsFactory.class.getClassLoader())) {
			throw new IllegalStateException(FLEET + " is not on the classpath");
		}
	}

	@Override
	public RedlockConnectionDetails getConnectionDetails(RedisFleet fleet) {
		return new FleetConnectionDetails(fleet);
	}

	/**
	 * The nodes of a fleet, read when the registry is built.
	 */
	static final class FleetConnectionDetails implements RedlockConnectionDetails {

		private final RedisFleet fleet;

		FleetConnectionDetails(RedisFleet fleet) {
			this.fleet = fleet;
		}

		@Override
		public List<String> getNodes() {
			return this.fleet.uris();
		}

		@Override
		public SslBundle getSslBundle() {
			return this.fleet.certificates().map(FleetConnectionDetails::bundle).orElse(null);
		}

		private static SslBundle bundle(TestCertificates certificates) {
			String password = certificates.storePassword();
			JksSslStoreDetails keyStore = new JksSslStoreDetails("PKCS12", null,
					"file:" + certificates.clientKeyStore(), password);
			JksSslStoreDetails trustStore = new JksSslStoreDetails("PKCS12", null, "file:" + certificates.trustStore(),
					password);
			return SslBundle.of(new JksSslStoreBundle(keyStore, trustStore), SslBundleKey.of(password));
		}

		@Override
		public String toString() {
			return "RedlockConnectionDetails of " + this.fleet;
		}

	}

}
