package io.github.redlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The one server of the application's Spring Data Redis connection details (the bean
 * Spring Boot's Redis auto-configuration builds from {@code spring.data.redis.*}, or a
 * Testcontainers {@code @ServiceConnection} or Docker Compose service), for an
 * application that lists no {@code redlock.nodes}. Its credentials and SSL bundle come
 * with it; none goes into the URI, so none can be shown.
 *
 * @author redlock contributors
 */
final class DataRedisFallback {

	private static final String PROPERTIES_DETAILS = "PropertiesDataRedisConnectionDetails";

	private static final String DETAILS = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

	private static final String[] CONNECTION_PROPERTIES = { "spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.sentinel.nodes", "spring.data.redis.cluster.nodes" };

	private final String uri;

	private final @Nullable String username;

	private final @Nullable String password;

	private final @Nullable SslBundle sslBundle;

	private DataRedisFallback(String uri, @Nullable String username, @Nullable String password,
			@Nullable SslBundle sslBundle) {
		this.uri = uri;
		this.username = username;
		this.password = password;
		this.sslBundle = sslBundle;
	}

	/**
	 * Returns the fallback node of the given connection details, or {@code null} when
	 * they are only Spring Boot's defaults (no {@code spring.data.redis.*} connection
	 * property is set): a lock service on an assumed {@code localhost:6379} would
	 * surprise; or when they name no server at all.
	 * @throws InvalidRedlockConfigurationException if the details describe Sentinel or a
	 * cluster
	 */
	static @Nullable DataRedisFallback of(DataRedisConnectionDetails details, Environment environment) {
		boolean fromProperties = details.getClass().getSimpleName().equals(PROPERTIES_DETAILS);
		if (fromProperties && !hasAny(environment, CONNECTION_PROPERTIES)) {
			return null;
		}
		if (details.getSentinel() != null || details.getCluster() != null || details.getMasterReplica() != null) {
			throw new InvalidRedlockConfigurationException(
					"redlock.nodes is not set and Spring Data Redis connects to a "
							+ ((details.getSentinel() != null) ? "Sentinel"
									: (details.getCluster() != null) ? "Redis Cluster" : "master-replica")
							+ " setup, on which Redlock cannot lock: its replicas may lose a lock on fail-over",
					"List 3 or 5 independent masters (no replicas, no cluster) in redlock.nodes");
		}
		DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
		if (standalone == null) {
			return null; // details of the application's own that name no server
		}
		SslBundle bundle = details.getSslBundle();
		String url = environment.getProperty("spring.data.redis.url", "");
		boolean ssl = bundle != null || (fromProperties && url.trim().startsWith("rediss://"));
		StringBuilder uri = new StringBuilder(ssl ? "rediss://" : "redis://").append(host(standalone.getHost()))
			.append(':')
			.append(standalone.getPort());
		if (standalone.getDatabase() != 0) {
			uri.append('/').append(standalone.getDatabase());
		}
		return new DataRedisFallback(uri.toString(), emptyToNull(details.getUsername()),
				emptyToNull(details.getPassword()), bundle);
	}

	/**
	 * Says why a {@code spring.data.redis.*} connection property that is set gave no
	 * fallback: Spring Data Redis's auto-configuration is not on the classpath, or did
	 * not apply.
	 * @param environment the environment
	 * @param classLoader the application's class loader
	 * @return the reason, or {@code null} when no such property is set
	 */
	static @Nullable String missing(Environment environment, @Nullable ClassLoader classLoader) {
		String set = null;
		for (String name : CONNECTION_PROPERTIES) {
			String value = environment.getProperty(name);
			if (value != null && !value.isBlank()) {
				set = name;
				break;
			}
		}
		if (set == null) {
			return null;
		}
		if (!ClassUtils.isPresent(DETAILS, classLoader)) {
			return set + " is set, but spring-boot-data-redis is not on the classpath (in Spring Boot 4 the Redis"
					+ " auto-configuration is a module of its own), so there is no Spring Data Redis connection to lock on";
		}
		return set + " is set, but there is no DataRedisConnectionDetails bean: Spring Boot's"
				+ " DataRedisAutoConfiguration is excluded or did not apply, so there is no Spring Data Redis"
				+ " connection to lock on";
	}

	private static String host(String host) {
		return (host.contains(":") && !host.startsWith("[")) ? "[" + host + "]" : host;
	}

	private static boolean hasAny(Environment environment, String... names) {
		for (String name : names) {
			String value = environment.getProperty(name);
			if (value != null && !value.isBlank()) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable String emptyToNull(@Nullable String text) {
		return (text != null && !text.isEmpty()) ? text : null;
	}

	/**
	 * Finds the fallback when it is needed, not before: with {@code redlock.nodes} set,
	 * the Spring Data Redis settings are not Redlock's business.
	 */
	static final class Source {

		private final DataRedisConnectionDetails details;

		private final Environment environment;

		Source(DataRedisConnectionDetails details, Environment environment) {
			this.details = details;
			this.environment = environment;
		}

		@Nullable DataRedisFallback find() {
			return of(this.details, this.environment);
		}

	}

	/**
	 * Returns the node's URI, without credentials.
	 */
	String uri() {
		return this.uri;
	}

	@Nullable String username() {
		return this.username;
	}

	@Nullable String password() {
		return this.password;
	}

	/**
	 * Returns the SSL bundle of the connection details, or {@code null} without TLS (or
	 * TLS by a {@code rediss://} URL with the JVM's default trust).
	 */
	@Nullable SslBundle sslBundle() {
		return this.sslBundle;
	}

}
