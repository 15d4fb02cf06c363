package io.github.redlock.observation;

import java.util.Locale;

import io.github.redlock.observation.RedlockObservationDocumentation.HighCardinalityKeyNames;
import io.github.redlock.observation.RedlockObservationDocumentation.HoldLowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * Default {@link LockHoldObservationConvention}: named {@code redlock.hold} (spans
 * {@code redlock hold}), with the outcome as a low-cardinality key value and the key and
 * fencing token as high-cardinality ones.
 *
 * @author redlock contributors
 * @see RedlockObservationDocumentation#LOCK_HOLD
 */
public class DefaultLockHoldObservationConvention implements LockHoldObservationConvention {

	/**
	 * A shared instance.
	 */
	public static final DefaultLockHoldObservationConvention INSTANCE = new DefaultLockHoldObservationConvention();

	private static final KeyValue OUTCOME_UNKNOWN = KeyValue.of(HoldLowCardinalityKeyNames.OUTCOME, "unknown");

	@Override
	public String getName() {
		return "redlock.hold";
	}

	@Override
	public String getContextualName(LockHoldContext context) {
		return "redlock hold";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockHoldContext context) {
		LockHoldContext.Outcome outcome = context.getOutcome();
		return KeyValues.of(
				(outcome != null) ? KeyValue.of(HoldLowCardinalityKeyNames.OUTCOME, outcome.value()) : OUTCOME_UNKNOWN,
				KeyValue.of(HoldLowCardinalityKeyNames.KIND, context.getKind().name().toLowerCase(Locale.ROOT)));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockHoldContext context) {
		return KeyValues.of(KeyValue.of(HighCardinalityKeyNames.KEY, context.getKey()),
				KeyValue.of(HighCardinalityKeyNames.FENCING_TOKEN, Long.toString(context.getFencingToken())));
	}

}
