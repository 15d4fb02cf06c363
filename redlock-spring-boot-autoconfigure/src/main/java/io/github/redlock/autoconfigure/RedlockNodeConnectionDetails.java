package io.github.redlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Details for connecting to one node of the lock quorum, where the nodes come one by one:
 * a Docker Compose service labelled {@code org.springframework.boot.service-connection:
 * redlock}, or a Testcontainers container annotated
 * {@code @ServiceConnection("redlock")}. Spring Boot makes one bean of this type per
 * service or container; the auto-configuration collects every one of them into the
 * quorum's {@link RedlockConnectionDetails}, ordered by {@link #getName() name}, unless
 * the application defines a {@code RedlockConnectionDetails} bean of its own. Like that
 * bean, the nodes replace {@code redlock.nodes}, {@code redlock.username},
 * {@code redlock.password} and {@code redlock.ssl.*}.
 * <p>
 * The nodes share one login and one TLS setting, as the properties do: start-up fails
 * when they differ.
 *
 * @author redlock contributors
 */
public interface RedlockNodeConnectionDetails extends ConnectionDetails {

	/**
	 * Name of the service connection that marks a Docker Compose service or a
	 * Testcontainers container as a node of the lock quorum.
	 */
	String SERVICE_CONNECTION_NAME = "redlock";

	/**
	 * Returns the name that orders this node in the quorum, such as the Docker Compose
	 * container or the test's field: the same nodes always give the same order.
	 * @return the name
	 */
	String getName();

	/**
	 * Returns the host to connect to.
	 * @return the host
	 */
	String getHost();

	/**
	 * Returns the port to connect to.
	 * @return the port
	 */
	int getPort();

	/**
	 * Returns whether the node lives only as long as a development or test run and starts
	 * empty with it, as a Docker Compose service or a test's container does. The restart
	 * guard would keep such a node out of quorums for {@code redlock.max-ttl} after every
	 * start, so it is off for a quorum of such nodes unless {@code redlock.restart-guard}
	 * is set.
	 * @return whether the node starts empty with each run
	 */
	default boolean isEphemeral() {
		return false;
	}

	/**
	 * Returns the login user name.
	 * @return the user name, or {@code null} for the default user
	 */
	default @Nullable String getUsername() {
		return null;
	}

	/**
	 * Returns the login password.
	 * @return the password, or {@code null} for none
	 */
	default @Nullable String getPassword() {
		return null;
	}

	/**
	 * Returns the SSL bundle to connect with over TLS.
	 * @return the bundle, or {@code null} for a plain connection
	 */
	default @Nullable SslBundle getSslBundle() {
		return null;
	}

}
