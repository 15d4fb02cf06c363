package io.github.redlock.autoconfigure.endpoint;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.endpoint.RedlockEndpoint;
import io.github.redlock.engine.RedlockRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration for the {@link RedlockEndpoint}, when it is available: enabled
 * (default; {@code management.endpoint.redlock.access=none} turns it off) and exposed,
 * which only the application decides, with
 * {@code management.endpoints.web.exposure.include=health,redlock} for instance.
 *
 * @author redlock contributors
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(RedlockRegistry.class)
@ConditionalOnAvailableEndpoint(RedlockEndpoint.class)
public final class RedlockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedlockEndpoint redlockEndpoint(RedlockRegistry redlockRegistry) {
		return new RedlockEndpoint(redlockRegistry);
	}

}
