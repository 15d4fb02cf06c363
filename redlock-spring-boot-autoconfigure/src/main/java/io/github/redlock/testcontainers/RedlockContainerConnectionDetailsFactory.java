package io.github.redlock.testcontainers;

import io.github.redlock.autoconfigure.RedlockNodeConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.Container;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

/**
 * {@link ContainerConnectionDetailsFactory} that makes a node of the lock quorum of a
 * container annotated {@code @ServiceConnection("redlock")}, whatever its image. Spring
 * Boot registers one bean per connection details type and context, so it would keep one
 * node of several: {@link RedlockContainerNodes} registers every node before it, and
 * Spring Boot then skips its own.
 *
 * @author redlock contributors
 */
class RedlockContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, RedlockNodeConnectionDetails> {

	RedlockContainerConnectionDetailsFactory() {
		super(RedlockNodeConnectionDetails.SERVICE_CONNECTION_NAME);
	}

	@Override
	protected RedlockNodeConnectionDetails getContainerConnectionDetails(
			ContainerConnectionSource<Container<?>> source) {
		return new RedlockContainerConnectionDetails(source);
	}

	/**
	 * A node on a container, named after its field or bean.
	 */
	static final class RedlockContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
			implements RedlockNodeConnectionDetails {

		RedlockContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
			super(source);
		}

		@Override
		public String getName() {
			return getOrigin().toString();
		}

		@Override
		public String getHost() {
			return getContainer().getHost();
		}

		@Override
		public int getPort() {
			return getContainer().getMappedPort(RedlockContainerNodes.REDIS_PORT);
		}

		@Override
		public @Nullable SslBundle getSslBundle() {
			return super.getSslBundle();
		}

		@Override
		public boolean isEphemeral() {
			return true;
		}

	}

}
