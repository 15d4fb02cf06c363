package io.github.redlock.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Details for connecting to the nodes of the lock quorum. The auto-configuration reads
 * them from the {@code redlock.*} properties unless the application or a test defines a
 * bean of this type, which replaces {@code redlock.nodes}, {@code redlock.clusters},
 * {@code redlock.username}, {@code redlock.password} and {@code redlock.ssl.*} (and the
 * Spring Data Redis fallback), as Spring Boot's connection details beans replace their
 * properties. A test's {@code @RedlockServiceConnection} fleet of
 * {@code redlock-embedded} supplies one (with {@code redlock-embedded-boot} at test
 * scope); so can an application's own bean, such as one reading a service registry. The
 * other {@code redlock.*} properties still apply. Without one, the
 * {@link RedlockNodeConnectionDetails} beans of Docker Compose services and
 * Testcontainers containers make the quorum.
 *
 * @author redlock contributors
 */
public interface RedlockConnectionDetails extends ConnectionDetails {

	/**
	 * Returns the URIs of the independent masters that make the quorum, such as
	 * {@code redis://10.0.0.1:6379}; 3 or 5 of them, or none when the quorum is of
	 * {@link #getClusters() clusters}.
	 * @return the URIs
	 */
	List<String> getNodes();

	/**
	 * Returns the members of the quorum that are Redis or Valkey Clusters, each given by
	 * the URIs of some of its servers (seeds), such as
	 * {@code [[redis://10.0.1.1:6379, redis://10.0.1.2:6379], ...]}; 3 or 5 of them. A
	 * quorum is of {@link #getNodes() nodes} or of clusters, not both.
	 * @return the seed URIs of each cluster, or an empty list for a quorum of nodes
	 */
	default List<List<String>> getClusters() {
		return List.of();
	}

	/**
	 * Returns the login user name for every node whose URI has no credentials.
	 * @return the user name, or {@code null} for the default user
	 */
	default @Nullable String getUsername() {
		return null;
	}

	/**
	 * Returns the login password for every node whose URI has no credentials.
	 * @return the password, or {@code null} for none
	 */
	default @Nullable String getPassword() {
		return null;
	}

	/**
	 * Returns the SSL bundle to connect to every node with over TLS: the trust material,
	 * and a client certificate for mutual TLS.
	 * @return the bundle, or {@code null} for plain connections or the JVM's default
	 * trust with {@code rediss://} URIs
	 */
	default @Nullable SslBundle getSslBundle() {
		return null;
	}

	/**
	 * Returns whether to connect to every node over TLS: with the {@link #getSslBundle()
	 * SSL bundle}, or without one, trusting the JVM's default trust store.
	 * @return whether every node uses TLS
	 */
	default boolean isSsl() {
		return getSslBundle() != null;
	}

}
