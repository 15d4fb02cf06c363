package io.github.redlock.embedded.service.connection;

import java.util.List;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.TestCertificates;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleKey;
import org.springframework.boot.ssl.jks.JksSslStoreBundle;
import org.springframework.boot.ssl.jks.JksSslStoreDetails;

/**
 * {@link RedlockConnectionDetails} for a running {@link RedisFleet} of
 * {@code redlock-embedded} (which a test's {@code @RedlockServiceConnection} fleet is):
 * its nodes, and for a TLS fleet an SSL bundle that trusts its CA and presents its client
 * certificate. Found through Spring Boot's {@code ConnectionDetailsFactories}, as Boot's
 * Testcontainers factories are, and kept out of the auto-configuration's jar as they are
 * out of Boot's.
 *
 * @author redlock contributors
 */
class RedisFleetConnectionDetailsFactory implements ConnectionDetailsFactory<RedisFleet, RedlockConnectionDetails> {

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
		public @Nullable SslBundle getSslBundle() {
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
