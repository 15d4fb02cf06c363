package io.github.redlock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} for {@link RedlockObservationDocumentation#LOCK_HOLD lock
 * holds}. Define a bean of this type to replace the
 * {@link DefaultLockHoldObservationConvention default}, or extend the default to add key
 * values.
 *
 * @author redlock contributors
 */
public interface LockHoldObservationConvention extends ObservationConvention<LockHoldContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockHoldContext;
	}

}
