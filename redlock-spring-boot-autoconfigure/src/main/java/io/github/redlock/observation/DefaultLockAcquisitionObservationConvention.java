package io.github.redlock.observation;

import java.util.Locale;

import io.github.redlock.observation.RedlockObservationDocumentation.AcquisitionLowCardinalityKeyNames;
import io.github.redlock.observation.RedlockObservationDocumentation.HighCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * Default {@link LockAcquisitionObservationConvention}: named {@code redlock.acquisition}
 * (spans {@code redlock acquire}), with the outcome, mode and reentrancy as
 * low-cardinality key values and the key and fencing token as high-cardinality ones.
 *
 * @author redlock contributors
 * @see RedlockObservationDocumentation#LOCK_ACQUISITION
 */
public class DefaultLockAcquisitionObservationConvention implements LockAcquisitionObservationConvention {

	/**
	 * A shared instance.
	 */
	public static final DefaultLockAcquisitionObservationConvention INSTANCE = new DefaultLockAcquisitionObservationConvention();

	private static final KeyValue OUTCOME_UNKNOWN = KeyValue.of(AcquisitionLowCardinalityKeyNames.OUTCOME, "unknown");

	private static final KeyValue REENTRANT = KeyValue.of(AcquisitionLowCardinalityKeyNames.REENTRANT, "true");

	private static final KeyValue NOT_REENTRANT = KeyValue.of(AcquisitionLowCardinalityKeyNames.REENTRANT, "false");

	@Override
	public String getName() {
		return "redlock.acquisition";
	}

	@Override
	public String getContextualName(LockAcquisitionContext context) {
		return "redlock acquire";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
		return KeyValues.of(outcome(context), mode(context), reentrant(context), kind(context));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockAcquisitionContext context) {
		KeyValues values = KeyValues.of(KeyValue.of(HighCardinalityKeyNames.KEY, context.getKey()));
		if (context.getOutcome() == LockAcquisitionContext.Outcome.ACQUIRED) {
			values = values
				.and(KeyValue.of(HighCardinalityKeyNames.FENCING_TOKEN, Long.toString(context.getFencingToken())));
		}
		return values;
	}

	/**
	 * Returns the outcome key value.
	 * @param context the context
	 * @return the key value
	 */
	protected KeyValue outcome(LockAcquisitionContext context) {
		LockAcquisitionContext.Outcome outcome = context.getOutcome();
		return (outcome != null) ? KeyValue.of(AcquisitionLowCardinalityKeyNames.OUTCOME, outcome.value())
				: OUTCOME_UNKNOWN;
	}

	/**
	 * Returns the mode key value.
	 * @param context the context
	 * @return the key value
	 */
	protected KeyValue mode(LockAcquisitionContext context) {
		return KeyValue.of(AcquisitionLowCardinalityKeyNames.MODE, context.getMode().name().toLowerCase(Locale.ROOT));
	}

	/**
	 * Returns the kind key value: {@code exclusive}, {@code read}, {@code write} or
	 * {@code permit}.
	 * @param context the context
	 * @return the key value
	 */
	protected KeyValue kind(LockAcquisitionContext context) {
		return KeyValue.of(AcquisitionLowCardinalityKeyNames.KIND, context.getKind().name().toLowerCase(Locale.ROOT));
	}

	/**
	 * Returns the reentrancy key value.
	 * @param context the context
	 * @return the key value
	 */
	protected KeyValue reentrant(LockAcquisitionContext context) {
		return context.isReentrant() ? REENTRANT : NOT_REENTRANT;
	}

}
