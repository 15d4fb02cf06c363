package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redlock.LockRegistry;
import io.github.redlock.aop.DistributedLockAdvisor;
import io.github.redlock.aop.LockCheckingTransactionListeners;
import io.github.redlock.engine.InvalidOptionException;
import io.github.redlock.engine.RedlockRegistry;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.util.StringUtils;

/**
 * Auto-configuration for distributed locks: a quorum {@link LockRegistry} over the nodes
 * of a {@link RedlockConnectionDetails} bean when there is one, else over
 * {@code redlock.nodes} (or the Spring Data Redis server), on Lettuce client resources
 * shared with Spring Data Redis when it has some.
 *
 * @author redlock contributors
 * @see RedlockProperties
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration" })
@ConditionalOnClass({ RedisClient.class, RedlockRegistry.class })
@ConditionalOnBooleanProperty(name = "redlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedlockProperties.class)
public final class RedlockAutoConfiguration {

	/** Name of the registry's own Lettuce {@link ClientResources} bean. */
	public static final String CLIENT_RESOURCES = "redlockClientResources";

	/**
	 * The registry's own Lettuce resources, never an application's (Spring Data Redis's
	 * reconnect in up to 30 s, and Boot's Lettuce metrics and tracing would time every
	 * lock command): not a candidate for injection by type, so that the application's
	 * {@code ClientResources} stays the one it injects. A bean of this name replaces it.
	 */
	@Bean(destroyMethod = "shutdown", defaultCandidate = false)
	@ConditionalOnMissingBean(name = CLIENT_RESOURCES)
	DefaultClientResources redlockClientResources() {
		// reconnect within a second of a node's return, so that it rejoins quorums
		// quickly
		return DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
	}

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedlockRegistry redlockRegistry(RedlockProperties properties,
			@Qualifier(CLIENT_RESOURCES) ClientResources clientResources, ApplicationContext context,
			ObjectProvider<SslBundles> sslBundles, ObjectProvider<DataRedisFallback.Source> dataRedis,
			ObjectProvider<RedlockConnectionDetails> connectionDetails,
			ObjectProvider<RedlockClientOptionsCustomizer> clientOptionsCustomizers,
			ObjectProvider<RedlockRegistryBuilderCustomizer> builderCustomizers) {
		RedlockConnectionDetails details = connectionDetails.getIfAvailable();
		DataRedisFallback.Source source = (details == null && properties.getNodes().isEmpty())
				? dataRedis.getIfAvailable() : null;
		DataRedisFallback fallback = (source != null) ? source.find() : null;
		RedlockRegistry.Builder builder = RedlockRegistry.builder()
			.nodes((details != null) ? RedlockNodes.resolve(details)
					: RedlockNodes.resolve(properties, fallback,
							() -> DataRedisFallback.missing(context.getEnvironment(), context.getClassLoader())))
			.keyPrefix(properties.getKeyPrefix())
			.defaultTtl(properties.getDefaultTtl())
			.defaultWaitTime(properties.getDefaultWaitTime())
			.nodeTimeout(properties.getNodeTimeout())
			.connectTimeout(properties.getConnectTimeout())
			.driftFactor(properties.getDriftFactor())
			.retryDelay(properties.getRetryDelay())
			.retryJitter(properties.getRetryJitter())
			.maxTtl(properties.getMaxTtl())
			.maxHold(properties.getMaxHold())
			.fencingRetention(properties.getFencingRetention())
			.restartGuard(properties.isRestartGuard())
			.acceptEviction(properties.isAcceptEviction())
			.releaseHints(properties.isReleaseHints())
			.clientResources(clientResources)
			.clientOptions((options) -> clientOptionsCustomizers.orderedStream()
				.forEach((customizer) -> customizer.customize(options)));
		if (details != null) {
			builder.username(details.getUsername()).password(details.getPassword());
			if (details.getSslBundle() != null) {
				builder.sslOptions(LettuceSsl.options(details.getSslBundle()));
			}
		}
		else {
			credentials(builder, properties, fallback);
			ssl(builder, properties, fallback, sslBundles);
		}
		builderCustomizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		try {
			return builder.build();
		}
		catch (InvalidOptionException ex) {
			throw InvalidRedlockConfigurationException.from(ex);
		}
	}

	private static void credentials(RedlockRegistry.Builder builder, RedlockProperties properties,
			DataRedisFallback fallback) {
		if (StringUtils.hasLength(properties.getUsername()) && !StringUtils.hasLength(properties.getPassword())) {
			throw new InvalidRedlockConfigurationException("redlock.username is set without redlock.password",
					"Set redlock.password too: Redis authenticates a user only with its password");
		}
		if (StringUtils.hasLength(properties.getPassword())) {
			builder.username(properties.getUsername()).password(properties.getPassword());
		}
		else if (fallback != null) {
			builder.username(fallback.username()).password(fallback.password());
		}
	}

	private static void ssl(RedlockRegistry.Builder builder, RedlockProperties properties, DataRedisFallback fallback,
			ObjectProvider<SslBundles> sslBundles) {
		RedlockProperties.Ssl ssl = properties.getSsl();
		if (ssl.getBundle() != null && ssl.isEnabled()) {
			builder.sslOptions(LettuceSsl.options(bundle(ssl.getBundle(), sslBundles.getIfAvailable())));
		}
		else if (ssl.isEnabled()) {
			builder.ssl(true);
		}
		else if (fallback != null && fallback.sslBundle() != null) {
			builder.sslOptions(LettuceSsl.options(fallback.sslBundle()));
		}
	}

	private static SslBundle bundle(String name, SslBundles sslBundles) {
		List<String> names = (sslBundles != null) ? sslBundles.getBundleNames() : List.of();
		if (sslBundles == null || !names.contains(name)) {
			throw new InvalidRedlockConfigurationException("redlock.ssl.bundle '" + name + "' names no SSL bundle",
					"Define it under spring.ssl.bundle.pem." + name + " or spring.ssl.bundle.jks." + name
							+ (names.isEmpty() ? " (no SSL bundle is defined)" : ", or use one of " + names));
		}
		return sslBundles.getBundle(name);
	}

	@Bean
	@ConditionalOnBean(RedlockRegistry.class)
	RedlockRegistryLifecycle redlockRegistryLifecycle(RedlockRegistry redlockRegistry) {
		return new RedlockRegistryLifecycle(redlockRegistry);
	}

	/**
	 * {@code @DistributedLock}: an advisor picked up by Spring's auto-proxy creator, with
	 * or without AspectJ on the classpath.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(DistributedLockProxyRegistrar.class)
	static class DistributedLockConfiguration {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistributedLockAdvisor distributedLockAdvisor(Environment environment) {
			return new DistributedLockAdvisor(
					environment.getProperty("redlock.order", Integer.class, RedlockProperties.DEFAULT_ORDER),
					environment.getProperty("redlock.max-keys", Integer.class,
							DistributedLockAdvisor.DEFAULT_MAX_KEYS));
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static CacheAdvisorOrdering redlockCacheAdvisorOrdering() {
			return new CacheAdvisorOrdering();
		}

	}

	/**
	 * The one server of Spring Data Redis's connection details, for applications that
	 * list no {@code redlock.nodes}.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
	static class DataRedisFallbackConfiguration {

		@Bean
		@ConditionalOnBean(DataRedisConnectionDetails.class)
		DataRedisFallback.Source redlockDataRedisFallback(DataRedisConnectionDetails details, Environment environment) {
			return new DataRedisFallback.Source(details, environment);
		}

	}

	/**
	 * Masks {@code redlock.password} and the passwords in {@code redlock.nodes} where
	 * Actuator shows configuration.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(SanitizingFunction.class)
	static class SanitizingConfiguration {

		@Bean
		static SanitizingFunction redlockSanitizingFunction() {
			return new RedlockSanitizingFunction();
		}

	}

	/**
	 * Checks {@code @DistributedLock} locks before the commit of a transaction that
	 * begins inside a locked method.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ConfigurableTransactionManager.class)
	static class LockedTransactionsConfiguration {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockCheckingTransactionListeners redlockLockCheckingTransactionListeners() {
			return new LockCheckingTransactionListeners();
		}

	}

}
