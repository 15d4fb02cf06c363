package io.github.redlock.integration.autoconfigure;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import io.github.redlock.LockRegistry;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.integration.RedlockLockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Integration lock registry is auto-configured over the redlock registry,
 * backs off for the application's own, and never makes injection of either
 * {@code LockRegistry} type ambiguous.
 */
class RedlockIntegrationAutoConfigurationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	// listed in reverse on purpose: the ordering comes from @AutoConfiguration(after)
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(RedlockIntegrationAutoConfiguration.class, RedlockAutoConfiguration.class))
		.withPropertyValues("redlock.restart-guard=false", "redlock.default-ttl=7s");

	@Test
	void aRedlockLockRegistryIsAutoConfiguredOverTheRedlockRegistry() {
		this.contextRunner.withPropertyValues("redlock.nodes=" + fleet.uris().get(0))
			.withBean(BothRegistries.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(RedlockLockRegistry.class);
				assertThat(context).hasSingleBean(org.springframework.integration.support.locks.LockRegistry.class);
				assertThat(context).hasSingleBean(LockRegistry.class);
				assertThat(context.getBean(RedlockLockRegistry.class).getTtl()).isEqualTo(Duration.ofSeconds(7));
				BothRegistries both = context.getBean(BothRegistries.class);
				assertThat(both.integration).isSameAs(context.getBean(RedlockLockRegistry.class));
				assertThat(both.redlock).isNotInstanceOf(RedlockLockRegistry.class);
				Lock lock = both.integration.obtain("auto-configured");
				assertThat(lock.tryLock()).isTrue();
				lock.unlock();
			});
	}

	@Test
	void backsOffWhenTheApplicationDefinesASpringIntegrationLockRegistry() {
		this.contextRunner.withPropertyValues("redlock.nodes=" + fleet.uris().get(0))
			.withBean(DefaultLockRegistry.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RedlockLockRegistry.class);
				assertThat(context).hasSingleBean(org.springframework.integration.support.locks.LockRegistry.class);
				assertThat(context).hasSingleBean(LockRegistry.class);
			});
	}

	@Test
	void isAbsentWithoutARedlockRegistry() {
		this.contextRunner.withPropertyValues("redlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockRegistry.class)
				.doesNotHaveBean(RedlockLockRegistry.class));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedlockIntegrationAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockLockRegistry.class));
	}

	@Test
	void isAbsentWithoutSpringIntegration() {
		this.contextRunner.withPropertyValues("redlock.nodes=" + fleet.uris().get(0))
			.withClassLoader(new FilteredClassLoader(org.springframework.integration.support.locks.LockRegistry.class))
			.run((context) -> assertThat(context).hasSingleBean(LockRegistry.class)
				.doesNotHaveBean(RedlockLockRegistry.class));
	}

	@Test
	void isListedAsAnAutoConfiguration() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(RedlockIntegrationAutoConfiguration.class.getName());
	}

	/**
	 * Injects both lock registry types by type alone.
	 */
	static class BothRegistries {

		final LockRegistry redlock;

		final org.springframework.integration.support.locks.LockRegistry<?> integration;

		BothRegistries(LockRegistry redlock,
				org.springframework.integration.support.locks.LockRegistry<?> integration) {
			this.redlock = redlock;
			this.integration = integration;
		}

	}

}
