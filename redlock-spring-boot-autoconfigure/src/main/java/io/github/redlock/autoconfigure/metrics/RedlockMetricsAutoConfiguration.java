package io.github.redlock.autoconfigure.metrics;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockRegistryBuilderCustomizer;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.metrics.RedlockMetrics;
import io.github.redlock.metrics.RedlockRegistryMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration for Micrometer metrics of the distributed locks, when the
 * application has a {@link MeterRegistry}: {@code redlock.acquire},
 * {@code redlock.lease}, {@code redlock.leases.active} and
 * {@code redlock.fencing.second.rounds}. Turn them off with
 * {@code management.metrics.enable.redlock=false}.
 *
 * @author redlock contributors
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, RedlockRegistry.class })
@ConditionalOnBean({ MeterRegistry.class, RedlockRegistry.class })
public final class RedlockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedlockMetrics redlockMetrics(MeterRegistry meterRegistry) {
		return new RedlockMetrics(meterRegistry);
	}

	@Bean
	RedlockRegistryBuilderCustomizer redlockMetricsBuilderCustomizer(RedlockMetrics redlockMetrics) {
		return (builder) -> builder.listener(redlockMetrics);
	}

	@Bean
	@ConditionalOnMissingBean
	RedlockRegistryMeterBinder redlockRegistryMeterBinder(RedlockRegistry redlockRegistry) {
		return new RedlockRegistryMeterBinder(redlockRegistry);
	}

}
