package io.github.redlock.autoconfigure.health;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.health.RedlockHealthIndicator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration for the {@link RedlockHealthIndicator}: a {@code redlock} component
 * in the health endpoint, unless {@code management.health.redlock.enabled} is
 * {@code false}.
 *
 * @author redlock contributors
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(RedlockRegistry.class)
@ConditionalOnEnabledHealthIndicator("redlock")
public final class RedlockHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "redlockHealthIndicator", "redlockHealthContributor" })
	RedlockHealthIndicator redlockHealthIndicator(RedlockRegistry redlockRegistry) {
		return new RedlockHealthIndicator(redlockRegistry);
	}

}
