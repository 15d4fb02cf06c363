package io.github.redlock.integration.autoconfigure;

import io.github.redlock.LockRegistry;
import io.github.redlock.integration.RedlockLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Spring Integration's lock registry over the redlock quorum: a
 * {@link RedlockLockRegistry} on the application's redlock {@link LockRegistry}, when
 * Spring Integration is on the class path and the application defines no Spring
 * Integration lock registry of its own. Its leases live for {@code redlock.default-ttl}.
 * <p>
 * The bean is a Spring Integration
 * {@link org.springframework.integration.support.locks.LockRegistry}, not a redlock
 * {@link LockRegistry}: injection points of either type find exactly one candidate.
 *
 * @author redlock contributors
 */
@AutoConfiguration(afterName = "io.github.redlock.autoconfigure.RedlockAutoConfiguration")
@ConditionalOnClass({ org.springframework.integration.support.locks.LockRegistry.class, LockRegistry.class })
public final class RedlockIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnBean(LockRegistry.class)
	@ConditionalOnMissingBean(org.springframework.integration.support.locks.LockRegistry.class)
	RedlockLockRegistry redlockIntegrationLockRegistry(LockRegistry redlockRegistry) {
		return new RedlockLockRegistry(redlockRegistry);
	}

}
