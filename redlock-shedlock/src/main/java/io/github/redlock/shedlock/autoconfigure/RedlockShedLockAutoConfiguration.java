package io.github.redlock.shedlock.autoconfigure;

import io.github.redlock.LockRegistry;
import io.github.redlock.shedlock.RedlockLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of a {@link RedlockLockProvider}: the application's ShedLock
 * {@link LockProvider} when ShedLock is on the classpath, a redlock {@link LockRegistry}
 * exists, and no other {@code LockProvider} is defined. With it,
 * {@code @EnableSchedulerLock} and {@code @SchedulerLock} need nothing more.
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

}
