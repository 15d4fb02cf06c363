package io.github.redlock.autoconfigure;

import java.time.Duration;
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
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Auto-configuration for distributed locks: a quorum {@link LockRegistry} over the
 * {@code redlock.nodes}, on Lettuce client resources shared with Spring Data Redis when
 * it has some.
 *
 * @author redlock contributors
 * @see RedlockProperties
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ RedisClient.class, RedlockRegistry.class })
@ConditionalOnBooleanProperty(name = "redlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedlockProperties.class)
public final class RedlockAutoConfiguration {

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnMissingBean(ClientResources.class)
	DefaultClientResources redlockClientResources() {
		// reconnect within a second of a node's return, so that it rejoins quorums
		// quickly
		return DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
	}

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedlockRegistry redlockRegistry(RedlockProperties properties, Environment environment,
			ClientResources clientResources, ObjectProvider<RedlockClientOptionsCustomizer> clientOptionsCustomizers,
			ObjectProvider<RedlockRegistryBuilderCustomizer> builderCustomizers) {
		RedlockRegistry.Builder builder = RedlockRegistry.builder()
			.nodes(RedlockNodes.resolve(properties, environment))
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
			.clientResources(clientResources)
			.clientOptions((options) -> clientOptionsCustomizers.orderedStream()
				.forEach((customizer) -> customizer.customize(options)));
		builderCustomizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		try {
			return builder.build();
		}
		catch (InvalidOptionException ex) {
			throw InvalidRedlockConfigurationException.from(ex);
		}
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
			return new DistributedLockAdvisor(environment.getProperty("redlock.order", Integer.class, 2147483646));
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
