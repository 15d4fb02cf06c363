package io.github.redlock.autoconfigure.endpoint;

import java.time.Clock;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockRegistryBuilderCustomizer;
import io.github.redlock.endpoint.RedlockEndpoint;
import io.github.redlock.endpoint.RedlockEndpointWebExtension;
import io.github.redlock.endpoint.RedlockEvents;
import io.github.redlock.engine.RedlockRegistry;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration for the {@link RedlockEndpoint}, when it is available: enabled
 * (default; {@code management.endpoint.redlock.access=none} turns it off) and exposed,
 * which only the application decides, with
 * {@code management.endpoints.web.exposure.include=health,redlock} for instance. With it
 * come the {@link RedlockEvents} it shows, a listener of the registry, and over the web
 * the {@link RedlockEndpointWebExtension}, whose release is off unless
 * {@code redlock.endpoint.release.enabled=true}.
 *
 * @author redlock contributors
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(RedlockRegistry.class)
@ConditionalOnAvailableEndpoint(RedlockEndpoint.class)
@EnableConfigurationProperties(RedlockEndpointProperties.class)
public final class RedlockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedlockEvents redlockEvents(RedlockEndpointProperties properties) {
		return new RedlockEvents(properties.getEvents().getCapacity(), Clock.systemUTC());
	}

	@Bean
	RedlockRegistryBuilderCustomizer redlockEventsBuilderCustomizer(RedlockEvents redlockEvents) {
		return (builder) -> builder.listener(redlockEvents);
	}

	@Bean
	@ConditionalOnMissingBean
	RedlockEndpoint redlockEndpoint(RedlockRegistry redlockRegistry, RedlockEvents redlockEvents) {
		return new RedlockEndpoint(redlockRegistry, redlockEvents);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	RedlockEndpointWebExtension redlockEndpointWebExtension(RedlockRegistry redlockRegistry,
			RedlockEvents redlockEvents, RedlockEndpointProperties properties) {
		return new RedlockEndpointWebExtension(redlockRegistry, redlockEvents, properties.getRelease().isEnabled());
	}

}
