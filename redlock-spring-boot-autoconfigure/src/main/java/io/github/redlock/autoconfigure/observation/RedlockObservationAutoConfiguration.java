package io.github.redlock.autoconfigure.observation;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockRegistryBuilderCustomizer;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.observation.LockAcquisitionObservationConvention;
import io.github.redlock.observation.LockHoldObservationConvention;
import io.github.redlock.observation.ObservationLockObserver;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration for Micrometer Observations of the distributed locks, when the
 * application has an {@link ObservationRegistry} (Spring Boot's
 * {@code spring-boot-micrometer-observation}, part of the Actuator starter):
 * {@code redlock.acquisition} and {@code redlock.hold}. Turn them off as any other
 * observation, with {@code management.observations.enable.redlock=false}. A
 * {@link LockAcquisitionObservationConvention} or {@link LockHoldObservationConvention}
 * bean replaces the default convention, and a {@link LockObserver} bean the whole
 * instrumentation.
 *
 * @author redlock contributors
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({ ObservationRegistry.class, RedlockRegistry.class })
@ConditionalOnBooleanProperty(name = "redlock.enabled", matchIfMissing = true)
@ConditionalOnBean(ObservationRegistry.class)
public final class RedlockObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockObserver.class)
	ObservationLockObserver redlockObservationLockObserver(ObservationRegistry observationRegistry,
			ObjectProvider<LockAcquisitionObservationConvention> acquisitionConvention,
			ObjectProvider<LockHoldObservationConvention> holdConvention) {
		return new ObservationLockObserver(observationRegistry, acquisitionConvention.getIfUnique(),
				holdConvention.getIfUnique());
	}

	@Bean
	RedlockRegistryBuilderCustomizer redlockObserverBuilderCustomizer(ObjectProvider<LockObserver> lockObserver) {
		return (builder) -> lockObserver.ifUnique(builder::observer);
	}

}
