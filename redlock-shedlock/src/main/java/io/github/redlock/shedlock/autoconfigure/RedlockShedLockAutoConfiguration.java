package io.github.redlock.shedlock.autoconfigure;

import io.github.redlock.LockRegistry;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.shedlock.RedlockLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of a {@link RedlockLockProvider}: the application's ShedLock
 * {@link LockProvider} when ShedLock is on the classpath, a redlock {@link LockRegistry}
 * exists, and no other {@code LockProvider} is defined. With it,
 * {@code @EnableSchedulerLock} and {@code @SchedulerLock} need nothing more. With
 * ShedLock's Spring support on the classpath, the start-up fails with the fix when a
 * {@code @SchedulerLock} method or {@code defaultLockAtMostFor} asks for a
 * {@code lockAtMostFor} above {@code redlock.max-hold}.
 *
 * @author redlock contributors
 */
@AutoConfiguration(afterName = "io.github.redlock.autoconfigure.RedlockAutoConfiguration")
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(LockRegistry.class)
public final class RedlockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	RedlockLockProvider redlockLockProvider(LockRegistry lockRegistry) {
		return new RedlockLockProvider(lockRegistry);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "net.javacrumbs.shedlock.spring.annotation.SchedulerLock")
	static class SchedulerLockChecks {

		@Bean
		@Nullable SchedulerLockMaxHoldCheck redlockSchedulerLockMaxHoldCheck(ConfigurableListableBeanFactory beanFactory,
				LockRegistry lockRegistry) {
			return (lockRegistry instanceof RedlockRegistry redlock)
					? new SchedulerLockMaxHoldCheck(beanFactory, redlock.settings().maxHold()) : null;
		}

	}

}
