package io.github.redlock.autoconfigure.metrics;

import java.util.List;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockRegistryBuilderCustomizer;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.metrics.RedlockClusterMeterBinder;
import io.github.redlock.metrics.RedlockMetrics;
import io.github.redlock.metrics.RedlockRegistryMeterBinder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.ResolvableType;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configuration for Micrometer metrics of the distributed locks, when the
 * application has a {@link MeterRegistry}: the state of the registry
 * ({@code redlock.leases.active}, {@code redlock.fencing.second.rounds},
 * {@code redlock.nodes.*}) and, with {@code redlock.clusters}, the masters of each
 * cluster member ({@code redlock.cluster.*}). Acquisitions and holds are timed once, by
 * the {@code redlock.acquisition} and {@code redlock.hold} observations; the deprecated
 * {@code redlock.acquire} and {@code redlock.lease} timers are recorded only when the
 * application has no {@link ObservationRegistry}, or with
 * {@code redlock.metrics.legacy-timers=true} while dashboards move. Turn them off with
 * {@code management.metrics.enable.redlock=false}.
 *
 * @author redlock contributors
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, RedlockRegistry.class })
@ConditionalOnBean({ MeterRegistry.class, RedlockRegistry.class })
public final class RedlockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Conditional(LegacyTimersCondition.class)
	@SuppressWarnings("removal")
	RedlockMetrics redlockMetrics(MeterRegistry meterRegistry) {
		return new RedlockMetrics(meterRegistry);
	}

	@Bean
	@SuppressWarnings("removal")
	RedlockRegistryBuilderCustomizer redlockMetricsBuilderCustomizer(ObjectProvider<RedlockMetrics> redlockMetrics) {
		return (builder) -> redlockMetrics.ifAvailable(builder::listener);
	}

	@Bean
	@ConditionalOnMissingBean
	RedlockRegistryMeterBinder redlockRegistryMeterBinder(RedlockRegistry redlockRegistry) {
		return new RedlockRegistryMeterBinder(redlockRegistry);
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(ClustersCondition.class)
	RedlockClusterMeterBinder redlockClusterMeterBinder(RedlockRegistry redlockRegistry) {
		return new RedlockClusterMeterBinder(redlockRegistry);
	}

	/**
	 * The gauges of the clusters' masters: only with {@code redlock.clusters}, since they
	 * ask the masters where the others ask no node.
	 */
	static final class ClustersCondition extends SpringBootCondition {

		private static final Bindable<List<List<String>>> CLUSTERS = Bindable.of(ResolvableType
			.forClassWithGenerics(List.class, ResolvableType.forClassWithGenerics(List.class, String.class)));

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionMessage.Builder message = ConditionMessage.forCondition("Redlock clusters");
			List<List<String>> clusters = Binder.get(context.getEnvironment())
				.bind("redlock.clusters", CLUSTERS)
				.orElse(List.of());
			return clusters.isEmpty() ? ConditionOutcome.noMatch(message.didNotFind("redlock.clusters").atAll())
					: ConditionOutcome.match(message.found("redlock.clusters").items(clusters.size() + " clusters"));
		}

	}

	/**
	 * The deprecated timers: only where no observation times the same events, or when
	 * asked for.
	 */
	static final class LegacyTimersCondition extends AnyNestedCondition {

		LegacyTimersCondition() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnMissingBean(ObservationRegistry.class)
		static final class NoObservations {

		}

		@ConditionalOnBooleanProperty("redlock.metrics.legacy-timers")
		static final class AskedFor {

		}

	}

}
