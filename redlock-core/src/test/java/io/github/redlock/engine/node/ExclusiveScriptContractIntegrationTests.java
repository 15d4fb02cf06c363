package io.github.redlock.engine.node;

import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.engine.node.ScriptContractSupport.RETENTION;
import static io.github.redlock.engine.node.ScriptContractSupport.RETENTION_MS;
import static io.github.redlock.engine.node.ScriptContractSupport.counter;
import static io.github.redlock.engine.node.ScriptContractSupport.eval;
import static io.github.redlock.engine.node.ScriptContractSupport.evalLong;
import static io.github.redlock.engine.node.ScriptContractSupport.get;
import static io.github.redlock.engine.node.ScriptContractSupport.lockValue;
import static io.github.redlock.engine.node.ScriptContractSupport.START;
import static io.github.redlock.engine.node.ScriptContractSupport.START_TEXT;
import static io.github.redlock.engine.node.ScriptContractSupport.nodeMillis;
import static io.github.redlock.engine.node.ScriptContractSupport.pttl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contracts of the exclusive lock's scripts (ACQUIRE, RAISE_FENCE, WITHDRAW, EXTEND)
 * and of MARKER and INSPECT, as the comments above them in {@link Script} state them,
 * pinned on a real node: each documented reply, and what each writes.
 */
class ExclusiveScriptContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	static final String LOCK = "redlock:lock:order";

	static final String FENCE = "redlock:fence:order";

	static final String MARKER_KEY = "redlock:marker";

	static final long TWO_TO_19 = 1L << 19;

	static final long TWO_TO_33 = 1L << 33;

	RedisNode node;

	@BeforeEach
	void emptyNode() {
		this.node = fleet.node(0);
		this.node.call("FLUSHALL");
	}

	long acquire(String value, String ttl) {
		return evalLong(this.node, Script.ACQUIRE, List.of(LOCK, FENCE), value, ttl, RETENTION, START_TEXT);
	}

	long acquireChecked(String value, String marker, String floor) {
		return evalLong(this.node, Script.ACQUIRE, List.of(LOCK, FENCE, MARKER_KEY), value, "30000", RETENTION,
				START_TEXT, marker, floor);
	}

	@Test
	void acquireAFreeKeyIsSetWithTheValueAndTtlAndAMissingCounterStartsAtTheStartSent() {
		String value = lockValue();
		long token = acquire(value, "30000");
		assertThat(token).isEqualTo(START);
		assertThat(get(node, LOCK)).isEqualTo(value);
		assertThat(pttl(node, LOCK)).isBetween(1L, 30000L);
		assertThat(counter(node, FENCE)).isEqualTo(token);
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
	}

	@Test
	void acquireACounterBelowTheStartIsLiftedToTheStartAndKeptForTheRetention() {
		node.call("SET", FENCE, String.valueOf(START - 5), "PX", "1000");
		assertThat(acquire(lockValue(), "30000")).isEqualTo(START);
		assertThat(counter(node, FENCE)).isEqualTo(START);
		assertThat(pttl(node, FENCE)).isGreaterThan(1000L).isLessThanOrEqualTo(RETENTION_MS);
	}

	@Test
	void acquireACounterAtOrAboveTheStartIncrementsByOneAndKeepsItsRetention() {
		node.call("SET", FENCE, START_TEXT, "PX", "1000");
		assertThat(acquire(lockValue(), "30000")).isEqualTo(START + 1);
		node.call("DEL", LOCK);
		node.call("SET", FENCE, String.valueOf(START + 1000), "PX", "1000");
		long token = acquire(lockValue(), "30000");
		assertThat(token).isEqualTo(START + 1001);
		assertThat(counter(node, FENCE)).isEqualTo(token);
		assertThat(pttl(node, FENCE)).isGreaterThan(1000L).isLessThanOrEqualTo(RETENTION_MS);
	}

	@Test
	void acquireWithTheMarkerKeyAMissingCounterStartsAtTheStartSentToo() {
		node.call("SET", MARKER_KEY, "node-id:1795000000000");
		long token = acquireChecked(lockValue(), "node-id:1795000000000", "0");
		assertThat(token).isEqualTo(START);
		assertThat(counter(node, FENCE)).isEqualTo(token);
	}

	@Test
	void acquireAMarkerOtherThanTheOneTheClientKnowsAnswersZeroAndWritesNothing() {
		node.call("SET", MARKER_KEY, "new-id:1795000000999");
		node.call("SET", FENCE, "42");
		assertThat(acquireChecked(lockValue(), "old-id:1795000000000", "0")).isZero();
		assertThat(get(node, LOCK)).isNull();
		assertThat(get(node, FENCE)).isEqualTo("42");
		// a missing marker differs too: the node lost its data
		node.call("DEL", MARKER_KEY);
		assertThat(acquireChecked(lockValue(), "old-id:1795000000000", "0")).isZero();
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void acquireTheFloorLiftsACounterBelowIt() {
		node.call("SET", MARKER_KEY, "m");
		node.call("SET", FENCE, "100");
		long floor = START + 3_600_000_000L;
		long token = acquireChecked(lockValue(), "m", String.valueOf(floor));
		assertThat(token).isEqualTo(floor);
		assertThat(counter(node, FENCE)).isEqualTo(floor);
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
	}

	@Test
	void acquireTheFloorLiftsAMissingCounterThatWouldStartBelowIt() {
		node.call("SET", MARKER_KEY, "m");
		long floor = START + 3_600_000_000L;
		assertThat(acquireChecked(lockValue(), "m", String.valueOf(floor))).isEqualTo(floor);
		assertThat(counter(node, FENCE)).isEqualTo(floor);
	}

	/**
	 * A marker with an empty floor (no floor known) takes no floor. Failed before the
	 * fix: the script compared the token with a nil and failed after it had set the lock
	 * and the counter, leaving the counter at 1 without an expiry.
	 */
	@Test
	void acquireWithTheMarkerAndAnEmptyFloorStartsTheCounterAtTheStart() {
		node.call("SET", MARKER_KEY, "m");
		long token = acquireChecked(lockValue(), "m", "");
		assertThat(token).isEqualTo(START);
		assertThat(counter(node, FENCE)).isEqualTo(token);
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
	}

	@Test
	void acquireAFloorBelowTheCounterLeavesTheIncrement() {
		node.call("SET", MARKER_KEY, "m");
		node.call("SET", FENCE, String.valueOf(START + 5000));
		assertThat(acquireChecked(lockValue(), "m", "10")).isEqualTo(START + 5001);
	}

	@Test
	void acquireHeldByAnotherOwnerItAnswersTheHoldersMillisAndTheCounterLowBitsAndWritesNothing() {
		String holder = lockValue();
		node.call("SET", LOCK, holder, "PX", "60000");
		long counterValue = 1_795_000_000_385_601L; // above 2^19 as node clocks are, bit
													// 18 set
		node.call("SET", FENCE, String.valueOf(counterValue));
		long reply = acquire(lockValue(), "30000");
		assertThat(reply).isNegative();
		assertThat(HeldReply.millis(reply)).isBetween(0L, 60000L);
		assertThat(HeldReply.counterLow(reply)).isEqualTo(counterValue % TWO_TO_19);
		assertThat(get(node, LOCK)).isEqualTo(holder);
		assertThat(counter(node, FENCE)).isEqualTo(counterValue);
	}

	@Test
	void acquireHeldWithoutACounterTheCounterLowBitsAreMinusOne() {
		node.call("SET", LOCK, lockValue(), "PX", "60000");
		long reply = acquire(lockValue(), "30000");
		assertThat(HeldReply.counterLow(reply)).isEqualTo(-1L);
		assertThat(HeldReply.millis(reply)).isBetween(0L, 60000L);
		assertThat(get(node, FENCE)).isNull();
	}

	@Test
	void acquireTheHeldReplyDecodesMillisNearThe33BitCapAndTheHighestCounterLowBits() {
		long justBelowCap = TWO_TO_33 - 1 - 5_000;
		node.call("SET", LOCK, lockValue(), "PX", String.valueOf(justBelowCap));
		node.call("SET", FENCE, String.valueOf(7 * TWO_TO_19 + TWO_TO_19 - 1));
		long reply = acquire(lockValue(), "30000");
		assertThat(HeldReply.millis(reply)).isBetween(justBelowCap - 600_000, justBelowCap);
		assertThat(HeldReply.counterLow(reply)).isEqualTo(TWO_TO_19 - 1);
	}

	@Test
	void acquireAHolderLongerThanTheCapIsReportedAtTheCap() {
		node.call("SET", LOCK, lockValue(), "PX", String.valueOf(TWO_TO_33 + 1_000_000));
		node.call("SET", FENCE, String.valueOf(TWO_TO_19));
		long reply = acquire(lockValue(), "30000");
		assertThat(HeldReply.millis(reply)).isEqualTo(TWO_TO_33 - 1);
		assertThat(HeldReply.counterLow(reply)).isZero();
	}

	@Test
	void acquireAHolderWithoutExpiryIsReportedAtZeroMillis() {
		node.call("SET", LOCK, lockValue());
		long reply = acquire(lockValue(), "30000");
		assertThat(reply).isNegative();
		assertThat(HeldReply.millis(reply)).isZero();
	}

	@Test
	void acquireAboveAgreesWithTheRealComparisonForTokensWithin2To18OfTheCounter() {
		long counterValue = 1_795_000_000_000_000L + TWO_TO_19 - 3; // low bits about to
																	// wrap
		node.call("SET", LOCK, lockValue(), "PX", "60000");
		node.call("SET", FENCE, String.valueOf(counterValue));
		long low = HeldReply.counterLow(acquire(lockValue(), "30000"));
		long limit = (1L << 18) - 1;
		for (long delta : new long[] { -limit, -70_000, -2, -1, 0, 1, 2, 3, 4, 70_000, limit }) {
			long token = counterValue + delta;
			assertThat(HeldReply.above(token, low)).as("token counter%+d", delta).isEqualTo(token > counterValue);
		}
	}

	long raise(String secret, String token) {
		return evalLong(node, Script.RAISE_FENCE, List.of(LOCK, FENCE), secret, token, RETENTION);
	}

	@Test
	void raiseFenceWhileTheLockIsOursALowerCounterIsRaisedToTheToken() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		node.call("SET", FENCE, "10");
		assertThat(raise(LockValues.secret(value), "500")).isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo("500");
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
	}

	@Test
	void raiseFenceAHigherCounterIsKeptAndAMissingOneIsWritten() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		node.call("SET", FENCE, "900");
		assertThat(raise(LockValues.secret(value), "500")).isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo("900");
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
		node.call("DEL", FENCE);
		assertThat(raise(LockValues.secret(value), "500")).isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo("500");
	}

	@Test
	void raiseFenceWhenTheLockIsNotOursItAnswersZeroAndLeavesTheCounter() {
		node.call("SET", LOCK, lockValue(), "PX", "30000");
		node.call("SET", FENCE, "10");
		assertThat(raise(LockValues.secret(lockValue()), "500")).isZero();
		node.call("DEL", LOCK);
		assertThat(raise(LockValues.secret(lockValue()), "500")).isZero();
		assertThat(get(node, FENCE)).isEqualTo("10");
		assertThat(pttl(node, FENCE)).isEqualTo(-1L);
	}

	@Test
	void withdrawWithTheSecretItDeletesTheKeyAndPublishesNothing() throws Exception {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		try (ScriptContractSupport.Subscriber hints = new ScriptContractSupport.Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.WITHDRAW, List.of(LOCK), LockValues.secret(value))).isEqualTo(1L);
			hints.nothingBefore();
		}
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void withdrawWithoutTheSecretItAnswersZeroAndKeepsTheKey() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		assertThat(evalLong(node, Script.WITHDRAW, List.of(LOCK, FENCE), LockValues.secret(lockValue()), "8", "7",
				RETENTION))
			.isZero();
		assertThat(evalLong(node, Script.WITHDRAW, List.of(LOCK),
				LockValues.secret(value).substring(0, LockValues.MIN_SECRET_LENGTH - 1)))
			.isZero();
		assertThat(get(node, LOCK)).isEqualTo(value);
	}

	@Test
	void withdrawGivenTheTokenItUndoesTheIncrementWhenTheCounterStillIsThatToken() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		node.call("SET", FENCE, "8");
		assertThat(evalLong(node, Script.WITHDRAW, List.of(LOCK, FENCE), LockValues.secret(value), "8", "7", RETENTION))
			.isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo("7");
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
	}

	@Test
	void withdrawGivenTheTokenItLeavesACounterThatMovedOn() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		node.call("SET", FENCE, "9");
		assertThat(evalLong(node, Script.WITHDRAW, List.of(LOCK, FENCE), LockValues.secret(value), "8", "7", RETENTION))
			.isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo("9");
		assertThat(pttl(node, FENCE)).isEqualTo(-1L);
	}

	@Test
	void extendWithTheSecretItSetsTheKeysTtlAndTheCountersRetention() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "1000");
		node.call("SET", FENCE, "5", "PX", "1000");
		assertThat(evalLong(node, Script.EXTEND, List.of(LOCK, FENCE), LockValues.secret(value), "60000", RETENTION))
			.isEqualTo(1L);
		assertThat(pttl(node, LOCK)).isGreaterThan(1000L).isLessThanOrEqualTo(60000L);
		assertThat(pttl(node, FENCE)).isGreaterThan(60000L).isLessThanOrEqualTo(RETENTION_MS);
		assertThat(get(node, LOCK)).isEqualTo(value);
	}

	@Test
	void extendWithoutTheSecretItAnswersZeroAndLeavesTheTtl() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		assertThat(evalLong(node, Script.EXTEND, List.of(LOCK, FENCE), LockValues.secret(lockValue()), "600000",
				RETENTION))
			.isZero();
		assertThat(evalLong(node, Script.EXTEND, List.of(LOCK, FENCE), "", "600000", RETENTION)).isZero();
		assertThat(pttl(node, LOCK)).isBetween(1L, 30000L);
		node.call("DEL", LOCK);
		assertThat(evalLong(node, Script.EXTEND, List.of(LOCK, FENCE), LockValues.secret(value), "600000", RETENTION))
			.isZero();
	}

	@Test
	void extendItComparesTheSecretOnlySoAMarkedValueIsExtendedToo() {
		String value = lockValue();
		node.call("SET", LOCK, ScriptContractSupport.marked(value), "PX", "1000");
		assertThat(evalLong(node, Script.EXTEND, List.of(LOCK, FENCE), LockValues.secret(value), "60000", RETENTION))
			.isEqualTo(1L);
		assertThat(pttl(node, LOCK)).isGreaterThan(1000L);
	}

	@Test
	void markerAMissingMarkerIsCreatedAsTheIdAndTheNodeTimeInMillis() {
		long before = nodeMillis(node);
		List<?> reply = (List<?>) eval(node, Script.MARKER, List.of(MARKER_KEY), "abcdefghijklmnop");
		long after = nodeMillis(node);
		String marker = (String) reply.get(0);
		assertThat(marker).startsWith("abcdefghijklmnop:");
		assertThat(Long.parseLong(marker.substring("abcdefghijklmnop:".length()))).isBetween(before, after);
		assertThat(get(node, MARKER_KEY)).isEqualTo(marker);
		assertThat(pttl(node, MARKER_KEY)).isEqualTo(-1L);
		long micros = Long.parseLong((String) reply.get(1)) * 1_000_000L + Long.parseLong((String) reply.get(2));
		assertThat(micros / 1000).isBetween(before, after);
		assertThat(reply.get(3)).isEqualTo(1L);
	}

	@Test
	void markerAnExistingMarkerIsKeptAndReportedAsNotCreated() {
		node.call("SET", MARKER_KEY, "old-id:1795000000000");
		List<?> reply = (List<?>) eval(node, Script.MARKER, List.of(MARKER_KEY), "new-id");
		assertThat(reply.get(0)).isEqualTo("old-id:1795000000000");
		assertThat(reply.get(3)).isEqualTo(0L);
		assertThat(get(node, MARKER_KEY)).isEqualTo("old-id:1795000000000");
	}

	@Test
	@SuppressWarnings("unchecked")
	void inspectAFreeKeyWithoutCounterIsValueAbsentPttlMinusTwoCounterAbsent() {
		List<Object> reply = (List<Object>) eval(node, Script.INSPECT, List.of(LOCK, FENCE));
		assertThat(reply).containsExactly(null, (Object) (-2L), null);
	}

	@Test
	void inspectAHeldKeyIsItsValueItsPttlAndTheCounterAndNothingChanges() {
		String value = lockValue();
		node.call("SET", LOCK, value, "PX", "30000");
		node.call("SET", FENCE, "77", "PX", "90000");
		List<?> reply = (List<?>) eval(node, Script.INSPECT, List.of(LOCK, FENCE));
		assertThat(reply.get(0)).isEqualTo(value);
		assertThat((Long) reply.get(1)).isBetween(1L, 30000L);
		assertThat(reply.get(2)).isEqualTo("77");
		assertThat(get(node, LOCK)).isEqualTo(value);
		assertThat(pttl(node, FENCE)).isBetween(30000L, 90000L);
	}

}
