package io.github.redlock.docker.compose;

import io.github.redlock.autoconfigure.RedlockNodeConnectionDetails;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;
import org.springframework.boot.ssl.SslBundle;

/**
 * {@link DockerComposeConnectionDetailsFactory} that makes a node of the lock quorum of
 * every Docker Compose service labelled
 * {@code org.springframework.boot.service-connection: redlock}, whatever its image
 * (Redis, Valkey, KeyDB). The label also keeps Spring Boot's own Redis factory away from
 * the service, so that the application's Spring Data Redis connection is the one
 * unlabelled {@code redis} service, if any. TLS comes from Spring Boot's
 * {@code org.springframework.boot.sslbundle.*} labels.
 *
 * @author redlock contributors
 */
class RedlockDockerComposeConnectionDetailsFactory
		extends DockerComposeConnectionDetailsFactory<RedlockNodeConnectionDetails> {

	private static final int REDIS_PORT = 6379;

	RedlockDockerComposeConnectionDetailsFactory() {
		super(RedlockNodeConnectionDetails.SERVICE_CONNECTION_NAME);
	}

	@Override
	protected RedlockNodeConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
		return new RedlockDockerComposeConnectionDetails(source.getRunningService());
	}

	/**
	 * A node on a running service, named after its container so that the quorum's order
	 * is the same on every start.
	 */
	static final class RedlockDockerComposeConnectionDetails extends DockerComposeConnectionDetails
			implements RedlockNodeConnectionDetails {

		private final String name;

		private final String host;

		private final int port;

		private final @Nullable SslBundle sslBundle;

		RedlockDockerComposeConnectionDetails(RunningService service) {
			super(service);
			this.name = service.name();
			this.host = service.host();
			this.port = service.ports().get(REDIS_PORT);
			this.sslBundle = getSslBundle(service);
		}

		@Override
		public String getName() {
			return this.name;
		}

		@Override
		public String getHost() {
			return this.host;
		}

		@Override
		public int getPort() {
			return this.port;
		}

		@Override
		public @Nullable SslBundle getSslBundle() {
			return this.sslBundle;
		}

		@Override
		public boolean isEphemeral() {
			return true;
		}

		@Override
		public String toString() {
			return "redlock node of the Docker Compose service " + this.name;
		}

	}

}
