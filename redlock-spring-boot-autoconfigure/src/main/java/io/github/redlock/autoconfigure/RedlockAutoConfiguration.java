package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.github.redlock.LockRegistry;
import io.github.redlock.aop.DistributedLockAdvisor;
import io.github.redlock.aop.DistributedLockSettings;
import io.github.redlock.aop.LockCheckingTransactionListeners;
import io.github.redlock.aop.LockInterceptionCheck;
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
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Auto-configuration for distributed locks: a quorum {@link LockRegistry} over the nodes
 * Auto-configuration for distributed locks: a quorum {@link LockRegistry} over the nodes
 * or clusters of the {@link RedlockConnectionDetails} (the application's, else the
 * {@link RedlockNodeConnectionDetails} of Docker Compose services or Testcontainers
 * containers, else those of the {@code redlock.*} properties, whose nodes fall back on
 * the Spring Data Redis server), on Lettuce client resources of its own.
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
	@Bean(destroyMethod = "close", defaultCandidate = false)
	@ConditionalOnMissingBean(name = CLIENT_RESOURCES)
	RedlockClientResources redlockClientResources() {
		// reconnect within a second of a node's return, so that it rejoins quorums
		// quickly
		return new RedlockClientResources(DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS)));
	}

	/**
	 * The quorum of the nodes that Spring Boot's service connections give one by one
	 * (labelled Docker Compose services, {@code @ServiceConnection("redlock")}
	 * containers).
	 */
	@Bean
	@ConditionalOnMissingBean(RedlockConnectionDetails.class)
	@ConditionalOnBean(RedlockNodeConnectionDetails.class)
	NodesRedlockConnectionDetails redlockNodesConnectionDetails(ObjectProvider<RedlockNodeConnectionDetails> nodes) {
		return new NodesRedlockConnectionDetails(nodes.stream().toList());
	}

	@Bean
	@ConditionalOnMissingBean({ RedlockConnectionDetails.class, RedlockNodeConnectionDetails.class })
	PropertiesRedlockConnectionDetails redlockConnectionDetails(RedlockProperties properties,
			ObjectProvider<SslBundles> sslBundles, ObjectProvider<DataRedisFallback.Source> dataRedis,
			ApplicationContext context) {
		RedlockNodes.refuseClustersAsOneString(context.getEnvironment());
		return new PropertiesRedlockConnectionDetails(properties, sslBundles::getIfAvailable, () -> {
			DataRedisFallback.Source source = dataRedis.getIfAvailable();
			return (source != null) ? source.find() : null;
		}, () -> DataRedisFallback.missing(context.getEnvironment(), context.getClassLoader()));
	}

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedlockRegistry redlockRegistry(RedlockProperties properties, RedlockConnectionDetails connectionDetails,
			@Qualifier(CLIENT_RESOURCES) ClientResources clientResources,
			ObjectProvider<RedlockClientOptionsCustomizer> clientOptionsCustomizers,
			ObjectProvider<RedlockRegistryBuilderCustomizer> builderCustomizers, Environment environment) {
		if (environment instanceof ConfigurableEnvironment configurable) {
			// before the nodes are read: a typo'd redlock.nodes is named, not only missed
			UnknownProperties.check(configurable, properties.getUnknownProperties(), null);
		}
		RedlockRegistry.Builder builder = RedlockRegistry.builder();
		List<List<String>> clusters = RedlockNodes.clusters(connectionDetails);
		if (clusters.isEmpty()) {
			builder.nodes((connectionDetails instanceof PropertiesRedlockConnectionDetails)
					? connectionDetails.getNodes() : RedlockNodes.resolve(connectionDetails));
		}
		else {
			// an empty YAML item is no seed; a cluster without any is refused by name
			clusters.forEach((seeds) -> builder.cluster(
					(seeds != null) ? seeds.stream().filter(Objects::nonNull).toArray(String[]::new) : new String[0]));
		}
		builder.keyPrefix(properties.getKeyPrefix())
			.defaultTtl(properties.getDefaultTtl())
			.defaultWaitTime(properties.getDefaultWaitTime())
			.nodeTimeout(properties.getNodeTimeout())
			.connectTimeout(properties.getConnectTimeout())
			.driftFactor(properties.getDriftFactor())
			.retryDelay(properties.getRetryDelay())
			.retryJitter(properties.getRetryJitter())
			.silentNodeTimeouts(properties.getSilentNodeTimeouts())
			.silentNodeProbeInterval(properties.getSilentNodeProbeInterval())
			.maxTtl(properties.getMaxTtl())
			.maxHold(properties.getMaxHold())
			.fencingRetention(properties.getFencingRetention())
			.restartGuard(RedlockNodes.restartGuard(properties, connectionDetails, environment))
			.acceptEviction(properties.isAcceptEviction())
			.releaseHints(properties.isReleaseHints())
			.clientResources(clientResources)
			.clientOptions((options) -> clientOptionsCustomizers.orderedStream()
				.forEach((customizer) -> customizer.customize(options)))
			.username(connectionDetails.getUsername())
			.password(connectionDetails.getPassword());
		SslBundle sslBundle = connectionDetails.getSslBundle();
		if (sslBundle != null) {
			builder.sslOptions(LettuceSsl.options(sslBundle));
		}
		else if (connectionDetails.isSsl()) {
			builder.ssl(true);
		}
		builderCustomizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		try {
			return builder.build();
		}
		catch (InvalidOptionException ex) {
			throw InvalidRedlockConfigurationException.from(ex, !clusters.isEmpty());
		}
	}

	/**
	 * What {@code @DistributedLock} methods take from the {@code redlock.*} properties:
	 * the interceptor knows this type, not the properties.
	 */
	@Bean
	@ConditionalOnMissingBean
	DistributedLockSettings redlockDistributedLockSettings(RedlockProperties properties) {
		return DistributedLockSettings.defaults()
			.withDefaultTtl(properties.getDefaultTtl())
			.withDefaultWaitTime(properties.getDefaultWaitTime())
			.withNodeTimeout(properties.getNodeTimeout())
			.withLeastTtl(RedlockRegistry.leastTtl(properties.getDriftFactor()))
			.withMaxTtl(properties.getMaxTtl())
			.withMaxHold(properties.getMaxHold())
			.withLostLockPolicy(properties.getLostLockPolicy());
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

		/**
		 * Refuses a locked method that the proxy built for its bean cannot intercept; not
		 * ordered, so that it runs after the auto-proxy creator and sees the proxy.
		 */
		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockInterceptionCheck redlockLockInterceptionCheck() {
			return new LockInterceptionCheck();
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
	 * Masks {@code redlock.password} and the passwords in {@code redlock.nodes} and
	 * {@code redlock.clusters} where Actuator shows configuration.
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
