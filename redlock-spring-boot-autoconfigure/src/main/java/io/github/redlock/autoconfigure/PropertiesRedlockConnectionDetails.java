package io.github.redlock.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/**
 * {@link RedlockConnectionDetails} from the {@code redlock.*} properties, as Spring
 * Boot's {@code PropertiesDataRedisConnectionDetails} is from
 * {@code spring.data.redis.*}: the one place where {@code redlock.nodes},
 * {@code redlock.clusters}, {@code redlock.username}, {@code redlock.password} and
 * {@code redlock.ssl.*} (or, without nodes, the Spring Data Redis server) become
 * connection settings. Backs off when the application or a test defines its own
 * {@code RedlockConnectionDetails}. Reads everything when the registry is built, not
 * before, so that a missing node is reported with the registry.
 *
 * @author redlock contributors
 */
final class PropertiesRedlockConnectionDetails implements RedlockConnectionDetails {

	private final RedlockProperties properties;

	private final Supplier<@Nullable SslBundles> sslBundles;

	private final Supplier<@Nullable DataRedisFallback> dataRedis;

	private final Supplier<@Nullable String> whyNoDataRedis;

	private volatile @Nullable DataRedisFallback fallback;

	private volatile boolean fallbackFound;

	PropertiesRedlockConnectionDetails(RedlockProperties properties, Supplier<@Nullable SslBundles> sslBundles,
			Supplier<@Nullable DataRedisFallback> dataRedis, Supplier<@Nullable String> whyNoDataRedis) {
		this.properties = properties;
		this.sslBundles = sslBundles;
		this.dataRedis = dataRedis;
		this.whyNoDataRedis = whyNoDataRedis;
	}

	/**
	 * The Spring Data Redis server, looked for only when {@code redlock.nodes} and
	 * {@code redlock.clusters} are empty.
	 */
	private @Nullable DataRedisFallback fallback() {
		if (!this.properties.getNodes().isEmpty() || !this.properties.getClusters().isEmpty()) {
			return null;
		}
		if (!this.fallbackFound) {
			this.fallback = this.dataRedis.get();
			this.fallbackFound = true;
		}
		return this.fallback;
	}

	@Override
	public List<String> getNodes() {
		if (!getClusters().isEmpty()) {
			return List.of();
		}
		return RedlockNodes.resolve(this.properties, fallback(), this.whyNoDataRedis);
	}

	@Override
	public List<List<String>> getClusters() {
		return RedlockNodes.clusters(this.properties);
	}

	@Override
	public @Nullable String getUsername() {
		checkCredentials();
		if (StringUtils.hasLength(this.properties.getPassword())) {
			return this.properties.getUsername();
		}
		DataRedisFallback fallback = fallback();
		return (fallback != null) ? fallback.username() : null;
	}

	@Override
	public @Nullable String getPassword() {
		checkCredentials();
		if (StringUtils.hasLength(this.properties.getPassword())) {
			return this.properties.getPassword();
		}
		DataRedisFallback fallback = fallback();
		return (fallback != null) ? fallback.password() : null;
	}

	private void checkCredentials() {
		if (StringUtils.hasLength(this.properties.getUsername())
				&& !StringUtils.hasLength(this.properties.getPassword())) {
			throw new InvalidRedlockConfigurationException("redlock.username is set without redlock.password",
					"Set redlock.password too: Redis authenticates a user only with its password");
		}
	}

	@Override
	public @Nullable SslBundle getSslBundle() {
		RedlockProperties.Ssl ssl = this.properties.getSsl();
		if (ssl.getBundle() != null && ssl.isEnabled()) {
			return bundle(ssl.getBundle(), this.sslBundles.get());
		}
		if (ssl.isEnabled()) {
			return null;
		}
		DataRedisFallback fallback = fallback();
		return (fallback != null) ? fallback.sslBundle() : null;
	}

	@Override
	public boolean isSsl() {
		return this.properties.getSsl().isEnabled() || getSslBundle() != null;
	}

	private static SslBundle bundle(String name, @Nullable SslBundles sslBundles) {
		List<String> names = (sslBundles != null) ? sslBundles.getBundleNames() : List.of();
		if (sslBundles == null || !names.contains(name)) {
			throw new InvalidRedlockConfigurationException("redlock.ssl.bundle '" + name + "' names no SSL bundle",
					"Define it under spring.ssl.bundle.pem." + name + " or spring.ssl.bundle.jks." + name
							+ (names.isEmpty() ? " (no SSL bundle is defined)" : ", or use one of " + names));
		}
		return sslBundles.getBundle(name);
	}

	@Override
	public String toString() {
		return "RedlockConnectionDetails of the redlock.* properties";
	}

}
