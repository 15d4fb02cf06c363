package io.github.redlock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} for
 * {@link RedlockObservationDocumentation#LOCK_ACQUISITION lock acquisitions}. Define a
 * bean of this type to replace the {@link DefaultLockAcquisitionObservationConvention
 * default}, or extend the default to add key values.
 *
 * @author redlock contributors
 */
public interface LockAcquisitionObservationConvention extends ObservationConvention<LockAcquisitionContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockAcquisitionContext;
	}

}
