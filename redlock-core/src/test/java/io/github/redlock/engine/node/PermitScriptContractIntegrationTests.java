package io.github.redlock.engine.node;

import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.ScriptContractSupport.Subscriber;
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
 * The contracts of the semaphore's scripts (ACQUIRE_PERMIT, EXTEND_PERMIT, RAISE_PERMIT,
 * RELEASE_PERMIT, LIVE_PERMITS), as their comments in {@link Script} state them, pinned
 * on a real node.
 */
class PermitScriptContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	static final String HOLDERS = "redlock:permits:pool";

	static final String EXPIRIES = "redlock:permit-expiries:pool";

	static final String FENCE = "redlock:fence:pool";

	static final String MARKER_KEY = "redlock:marker";

	static final String CHANNEL = "redlock:permit-channel:pool";

	static final long RANGE = Script.PERMIT_HINT_RANGE;

	RedisNode node;

	@BeforeEach
	void emptyNode() {
		this.node = fleet.node(0);
		this.node.call("FLUSHALL");
	}

	long acquire(String value, String ttl, int permits, int slot) {
		return evalLong(this.node, Script.ACQUIRE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE), value, ttl, RETENTION,
				String.valueOf(permits), String.valueOf(slot), START_TEXT);
	}

	/** The ms from the node's now until the slot's expiry. */
	long slotLeft(int slot) {
		return (long) Double.parseDouble((String) this.node.call("ZSCORE", EXPIRIES, String.valueOf(slot)))
				- nodeMillis(this.node);
	}

	static long refusedMillis(long reply) {
		return (-reply - 1) / RANGE;
	}

	static long refusedHint(long reply) {
		return (-reply - 1) % RANGE;
	}

	@Test
	void acquirePermitTakesAFreeSlotAndAnswersAToken() {
		String value = lockValue();
		long token = acquire(value, "30000", 3, 1);
		assertThat(token).isEqualTo(START);
		assertThat(counter(node, FENCE)).isEqualTo(token);
		assertThat(node.call("HGET", HOLDERS, "1")).isEqualTo(value);
		assertThat(slotLeft(1)).isBetween(0L, 30000L);
		assertThat(pttl(node, HOLDERS)).isBetween(1L, 30000L);
		assertThat(pttl(node, EXPIRIES)).isBetween(1L, 30000L);
		assertThat(acquire(lockValue(), "60000", 3, 0)).isEqualTo(token + 1);
		assertThat(pttl(node, HOLDERS)).as("the keys live as long as the last permit").isBetween(30001L, 60000L);
	}

	@Test
	void acquirePermitOfATakenSlotAnswersItsMillisAndTheNextFreeSlotInCyclicOrder() {
		String holder = lockValue();
		acquire(holder, "30000", 4, 0);
		long reply = acquire(lockValue(), "30000", 4, 0);
		assertThat(refusedMillis(reply)).isBetween(0L, 30000L);
		assertThat(refusedHint(reply)).as("1 + slot 1").isEqualTo(2L);
		acquire(lockValue(), "30000", 4, 3);
		reply = acquire(lockValue(), "30000", 4, 3);
		assertThat(refusedHint(reply)).as("after slot 3 comes slot 0, taken, then slot 1").isEqualTo(2L);
		assertThat(node.call("HGET", HOLDERS, "0")).isEqualTo(holder);
	}

	@Test
	void acquirePermitWithAllPermitsTakenAnswersTheFirstExpiryWithoutAHint() {
		acquire(lockValue(), "20000", 2, 0);
		acquire(lockValue(), "60000", 2, 1);
		long reply = acquire(lockValue(), "30000", 2, 1);
		assertThat(refusedMillis(reply)).isBetween(0L, 20000L);
		assertThat(refusedHint(reply)).isZero();
	}

	@Test
	void acquirePermitCountsSlotsHeldUnderALargerCount() {
		acquire(lockValue(), "30000", 3, 2);
		acquire(lockValue(), "30000", 3, 1);
		long reply = acquire(lockValue(), "30000", 2, 0);
		assertThat(reply).isNegative();
		assertThat(refusedHint(reply)).isZero();
		assertThat(node.call("HGET", HOLDERS, "0")).isNull();
	}

	@Test
	void acquirePermitPurgesDeadPermitsFirst() {
		long past = nodeMillis(node) - 1000;
		node.call("HSET", HOLDERS, "0", "dead-holder");
		node.call("ZADD", EXPIRIES, String.valueOf(past), "0");
		String value = lockValue();
		assertThat(acquire(value, "30000", 1, 0)).isPositive();
		assertThat(node.call("HGET", HOLDERS, "0")).isEqualTo(value);
		assertThat(slotLeft(0)).isBetween(0L, 30000L);
	}

	@Test
	void acquirePermitAnswersZeroAndWritesNothingForAnEmptyValueOrAnotherMarker() {
		assertThat(acquire("", "30000", 3, 0)).isZero();
		node.call("SET", MARKER_KEY, "new-id:1");
		assertThat(evalLong(node, Script.ACQUIRE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE, MARKER_KEY), lockValue(),
				"30000", RETENTION, "3", "0", START_TEXT, "old-id:1", "0"))
			.isZero();
		assertThat((Long) node.call("EXISTS", HOLDERS, EXPIRIES, FENCE)).isZero();
	}

	@Test
	void acquirePermitWithTheMarkerStartsTheCounterAtTheStartOrTheFloor() {
		node.call("SET", MARKER_KEY, "m");
		long token = evalLong(node, Script.ACQUIRE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE, MARKER_KEY), lockValue(),
				"30000", RETENTION, "3", "0", START_TEXT, "m", "0");
		assertThat(token).isEqualTo(START);
		long floor = token + 3_600_000_000L;
		assertThat(evalLong(node, Script.ACQUIRE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE, MARKER_KEY), lockValue(),
				"30000", RETENTION, "3", "1", START_TEXT, "m", String.valueOf(floor)))
			.isEqualTo(floor);
	}

	@Test
	void extendPermitSetsALivePermitsExpiryAndTheKeysAndTheCountersRetention() {
		String value = lockValue();
		acquire(value, "5000", 3, 2);
		node.call("PEXPIRE", FENCE, "5000");
		assertThat(evalLong(node, Script.EXTEND_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE), LockValues.secret(value),
				"60000", RETENTION, "2"))
			.isEqualTo(1L);
		assertThat(slotLeft(2)).isBetween(5001L, 60000L);
		assertThat(pttl(node, HOLDERS)).isBetween(5001L, 60000L);
		assertThat(pttl(node, EXPIRIES)).isBetween(5001L, 60000L);
		assertThat(pttl(node, FENCE)).isBetween(60001L, RETENTION_MS);
	}

	@Test
	void extendPermitAnswersZeroForAnotherSlotSecretOrADeadPermit() {
		String value = lockValue();
		acquire(value, "30000", 3, 2);
		String secret = LockValues.secret(value);
		for (List<String> args : List.of(List.of(secret, "1"), List.of(LockValues.secret(lockValue()), "2"),
				List.of(secret.substring(0, LockValues.MIN_SECRET_LENGTH - 1), "2"), List.of("", "2"))) {
			assertThat(evalLong(node, Script.EXTEND_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE), args.get(0), "90000",
					RETENTION, args.get(1)))
				.as("extend-permit %s", args)
				.isZero();
		}
		node.call("ZADD", EXPIRIES, String.valueOf(nodeMillis(node) - 1000), "2");
		assertThat(evalLong(node, Script.EXTEND_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE), secret, "90000", RETENTION,
				"2"))
			.isZero();
	}

	@Test
	void raisePermitRaisesTheCounterOnlyWhileThePermitIsOursAndLive() {
		String value = lockValue();
		long token = acquire(value, "30000", 3, 0);
		String secret = LockValues.secret(value);
		String higher = String.valueOf(token + 10);
		assertThat(
				evalLong(node, Script.RAISE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE), secret, higher, RETENTION, "0"))
			.isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo(higher);
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
		assertThat(evalLong(node, Script.RAISE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE), secret, "3", RETENTION, "0"))
			.isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo(higher);
		assertThat(evalLong(node, Script.RAISE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE),
				LockValues.secret(lockValue()), String.valueOf(token + 99), RETENTION, "0"))
			.isZero();
		node.call("ZADD", EXPIRIES, String.valueOf(nodeMillis(node) - 1000), "0");
		assertThat(evalLong(node, Script.RAISE_PERMIT, List.of(HOLDERS, EXPIRIES, FENCE), secret,
				String.valueOf(token + 99), RETENTION, "0"))
			.isZero();
		assertThat(get(node, FENCE)).isEqualTo(higher);
	}

	@Test
	void releasePermitFreesOurSlotAndPublishesTheMessageOnTheChannelGiven() throws Exception {
		String value = lockValue();
		acquire(value, "30000", 3, 1);
		acquire(lockValue(), "30000", 3, 2);
		try (Subscriber hints = new Subscriber(node, CHANNEL)) {
			assertThat(evalLong(node, Script.RELEASE_PERMIT, List.of(HOLDERS, EXPIRIES), LockValues.secret(value), "1",
					CHANNEL, "77:1"))
				.isEqualTo(1L);
			assertThat(hints.next()).isEqualTo("77:1");
		}
		assertThat(node.call("HGET", HOLDERS, "1")).isNull();
		assertThat(node.call("ZSCORE", EXPIRIES, "1")).isNull();
		assertThat(node.call("HGET", HOLDERS, "2")).isNotNull();
	}

	@Test
	void releasePermitWithoutAChannelPublishesNothing() throws Exception {
		String value = lockValue();
		acquire(value, "30000", 3, 1);
		try (Subscriber hints = new Subscriber(node, CHANNEL)) {
			assertThat(evalLong(node, Script.RELEASE_PERMIT, List.of(HOLDERS, EXPIRIES), LockValues.secret(value), "1"))
				.isEqualTo(1L);
			hints.nothingBefore();
		}
		assertThat(node.call("HGET", HOLDERS, "1")).isNull();
	}

	@Test
	void releasePermitOfAnotherSlotOrSecretAnswersZeroKeepsThePermitAndPublishesNothing() throws Exception {
		String value = lockValue();
		acquire(value, "30000", 3, 1);
		String secret = LockValues.secret(value);
		try (Subscriber hints = new Subscriber(node, CHANNEL)) {
			for (List<String> args : List.of(List.of(secret, "0"), List.of(LockValues.secret(lockValue()), "1"),
					List.of(secret.substring(0, LockValues.MIN_SECRET_LENGTH - 1), "1"), List.of("", "1"))) {
				assertThat(evalLong(node, Script.RELEASE_PERMIT, List.of(HOLDERS, EXPIRIES), args.get(0), args.get(1),
						CHANNEL, "77:1"))
					.as("release-permit %s", args)
					.isZero();
			}
			hints.nothingBefore();
		}
		assertThat(node.call("HGET", HOLDERS, "1")).isEqualTo(value);
	}

	@Test
	void livePermitsAnswersTheLiveSlotsAndChangesNothing() {
		acquire(lockValue(), "30000", 4, 3);
		acquire(lockValue(), "60000", 4, 1);
		node.call("ZADD", EXPIRIES, String.valueOf(nodeMillis(node) - 1000), "0");
		assertThat(eval(node, Script.LIVE_PERMITS, List.of(EXPIRIES))).isEqualTo(List.of("3", "1"));
		assertThat((Long) node.call("ZCARD", EXPIRIES)).as("the dead one stays").isEqualTo(3L);
		node.call("DEL", EXPIRIES);
		assertThat(eval(node, Script.LIVE_PERMITS, List.of(EXPIRIES))).isEqualTo(List.of());
	}

}
