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
import static io.github.redlock.engine.node.ScriptContractSupport.evalLong;
import static io.github.redlock.engine.node.ScriptContractSupport.get;
import static io.github.redlock.engine.node.ScriptContractSupport.lockValue;
import static io.github.redlock.engine.node.ScriptContractSupport.START;
import static io.github.redlock.engine.node.ScriptContractSupport.START_TEXT;
import static io.github.redlock.engine.node.ScriptContractSupport.nodeMillis;
import static io.github.redlock.engine.node.ScriptContractSupport.pttl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contracts of the read-write lock's scripts (ACQUIRE_READ, EXTEND_READ, RAISE_READ,
 * RELEASE_READ, WITHDRAW_READ, ACQUIRE_WRITE, EXTEND_WRITE, RELEASE_WRITE, CLEAR_INTENT),
 * as their comments in {@link Script} state them, pinned on a real node.
 */
class ReadWriteScriptContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	static final String LOCK = "redlock:lock:doc";

	static final String FENCE = "redlock:fence:doc";

	static final String READERS = "redlock:readers:doc";

	static final String MARK = "redlock:intent:doc";

	static final String MARKER_KEY = "redlock:marker";

	RedisNode node;

	@BeforeEach
	void emptyNode() {
		this.node = fleet.node(0);
		this.node.call("FLUSHALL");
	}

	static String secret() {
		return LockValues.secret(lockValue());
	}

	long acquireRead(String secret, String ttl, String downgrade) {
		return evalLong(this.node, Script.ACQUIRE_READ, List.of(LOCK, FENCE, READERS, MARK), secret, ttl, RETENTION,
				downgrade, START_TEXT);
	}

	long acquireWrite(String value, String ttl, String mark) {
		return evalLong(this.node, Script.ACQUIRE_WRITE, List.of(LOCK, FENCE, READERS, MARK), value, ttl, RETENTION,
				"20000", mark, START_TEXT);
	}

	/** The ms from the node's now until the reader's expiry. */
	long readerLeft(String secret) {
		return (long) Double.parseDouble((String) this.node.call("ZSCORE", READERS, secret)) - nodeMillis(this.node);
	}

	@Test
	void acquireReadOnAFreeKeyAddsTheReaderSetsReadersOnTheLockKeyAndAnswersAToken() {
		String reader = secret();
		long token = acquireRead(reader, "30000", "");
		assertThat(token).isEqualTo(START);
		assertThat(counter(node, FENCE)).isEqualTo(token);
		assertThat(readerLeft(reader)).isBetween(0L, 30000L);
		assertThat(get(node, LOCK)).isEqualTo(Script.READERS);
		assertThat(pttl(node, LOCK)).isBetween(1L, 30000L);
		assertThat(pttl(node, READERS)).isBetween(1L, 30000L);
	}

	@Test
	void acquireReadKeepsTheLockKeyUntilTheLatestReadersExpiry() {
		long first = acquireRead(secret(), "60000", "");
		long second = acquireRead(secret(), "5000", "");
		assertThat(second).isEqualTo(first + 1);
		assertThat(pttl(node, LOCK)).isGreaterThan(5000L).isLessThanOrEqualTo(60000L);
		assertThat((Long) node.call("ZCARD", READERS)).isEqualTo(2L);
	}

	@Test
	void acquireReadIsRefusedWithTheHoldersMillisWhileAnExclusiveHolderHolds() {
		node.call("SET", LOCK, lockValue(), "PX", "30000");
		long reply = acquireRead(secret(), "30000", "");
		assertThat(-reply - 1).isBetween(0L, 30000L);
		assertThat((Long) node.call("EXISTS", READERS, FENCE)).isZero();
	}

	@Test
	void acquireReadIsRefusedWithTheMarksMillisWhileAWriterWaits() {
		node.call("SET", MARK, "writer-attempt", "PX", "20000");
		long reply = acquireRead(secret(), "30000", "");
		assertThat(-reply - 1).isBetween(1L, 20000L);
		assertThat((Long) node.call("EXISTS", LOCK, READERS, FENCE)).isZero();
	}

	@Test
	void acquireReadByTheDowngradingWriterPassesTheMarkAndKeepsTheWritersValueAtLeastAsLongAsTheReader() {
		String writer = lockValue();
		node.call("SET", LOCK, writer, "PX", "5000");
		node.call("SET", MARK, "another-writer", "PX", "20000");
		String reader = secret();
		assertThat(acquireRead(reader, "60000", LockValues.secret(writer))).isPositive();
		assertThat(get(node, LOCK)).isEqualTo(writer);
		assertThat(pttl(node, LOCK)).isGreaterThan(5000L).isLessThanOrEqualTo(60000L);
		assertThat(readerLeft(reader)).isBetween(0L, 60000L);
	}

	@Test
	void acquireReadWithADowngradeSecretShorterThanTheMinimumIsNoDowngrade() {
		String writer = lockValue();
		node.call("SET", LOCK, writer, "PX", "30000");
		long reply = acquireRead(secret(), "60000", writer.substring(0, LockValues.MIN_SECRET_LENGTH - 1));
		assertThat(-reply - 1).isBetween(0L, 30000L);
		assertThat((Long) node.call("EXISTS", READERS)).isZero();
		assertThat(acquireRead(secret(), "60000", writer.substring(0, LockValues.MIN_SECRET_LENGTH))).isPositive();
	}

	@Test
	void acquireReadAnswersZeroAndWritesNothingForAnEmptySecretOrAnotherMarker() {
		assertThat(acquireRead("", "30000", "")).isZero();
		node.call("SET", MARKER_KEY, "new-id:1");
		assertThat(evalLong(node, Script.ACQUIRE_READ, List.of(LOCK, FENCE, READERS, MARK, MARKER_KEY), secret(),
				"30000", RETENTION, "", START_TEXT, "old-id:1", "0"))
			.isZero();
		assertThat((Long) node.call("EXISTS", LOCK, READERS, FENCE)).isZero();
	}

	@Test
	void extendReadSetsALiveReadersExpiryAndTheLockKeyAndTheCountersRetention() {
		String reader = secret();
		acquireRead(reader, "5000", "");
		node.call("PEXPIRE", FENCE, "5000");
		assertThat(evalLong(node, Script.EXTEND_READ, List.of(LOCK, FENCE, READERS), reader, "60000", RETENTION))
			.isEqualTo(1L);
		assertThat(readerLeft(reader)).isGreaterThan(5000L).isLessThanOrEqualTo(60000L);
		assertThat(pttl(node, LOCK)).isGreaterThan(5000L).isLessThanOrEqualTo(60000L);
		assertThat(get(node, LOCK)).isEqualTo(Script.READERS);
		assertThat(pttl(node, FENCE)).isGreaterThan(60000L).isLessThanOrEqualTo(RETENTION_MS);
	}

	@Test
	void extendReadWritesReadersBackOnAMissingLockKey() {
		String reader = secret();
		acquireRead(reader, "5000", "");
		node.call("DEL", LOCK);
		assertThat(evalLong(node, Script.EXTEND_READ, List.of(LOCK, FENCE, READERS), reader, "60000", RETENTION))
			.isEqualTo(1L);
		assertThat(get(node, LOCK)).isEqualTo(Script.READERS);
		assertThat(pttl(node, LOCK)).isBetween(5001L, 60000L);
	}

	@Test
	void extendReadAnswersZeroForAnUnknownDeadShortOrEmptySecret() {
		long now = nodeMillis(node);
		String dead = secret();
		String shortSecret = dead.substring(0, LockValues.MIN_SECRET_LENGTH - 1);
		node.call("ZADD", READERS, String.valueOf(now - 1000), dead, String.valueOf(now + 60000), shortSecret);
		for (String reader : List.of(secret(), dead, shortSecret, "")) {
			assertThat(evalLong(node, Script.EXTEND_READ, List.of(LOCK, FENCE, READERS), reader, "60000", RETENTION))
				.as("extend-read of '%s'", reader)
				.isZero();
		}
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void raiseReadRaisesTheCounterOnlyWhileTheReaderIsLive() {
		String reader = secret();
		long token = acquireRead(reader, "30000", "");
		String higher = String.valueOf(token + 10);
		assertThat(evalLong(node, Script.RAISE_READ, List.of(READERS, FENCE), reader, higher, RETENTION)).isEqualTo(1L);
		assertThat(get(node, FENCE)).isEqualTo(higher);
		assertThat(pttl(node, FENCE)).isBetween(1L, RETENTION_MS);
		assertThat(evalLong(node, Script.RAISE_READ, List.of(READERS, FENCE), reader, "5", RETENTION)).isEqualTo(1L);
		assertThat(get(node, FENCE)).as("a lower token leaves it").isEqualTo(higher);
		assertThat(evalLong(node, Script.RAISE_READ, List.of(READERS, FENCE), secret(), String.valueOf(token + 99),
				RETENTION))
			.isZero();
		node.call("ZADD", READERS, String.valueOf(nodeMillis(node) - 1000), reader);
		assertThat(evalLong(node, Script.RAISE_READ, List.of(READERS, FENCE), reader, String.valueOf(token + 99),
				RETENTION))
			.isZero();
		assertThat(get(node, FENCE)).isEqualTo(higher);
	}

	@Test
	void releaseReadOfTheLastReaderDeletesTheLockKeyAndPublishesAHint() throws Exception {
		String reader = secret();
		acquireRead(reader, "30000", "");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.RELEASE_READ, List.of(LOCK, READERS), reader)).isEqualTo(1L);
			assertThat(hints.next()).isEmpty();
		}
		assertThat((Long) node.call("EXISTS", LOCK, READERS)).isZero();
	}

	@Test
	void releaseReadWithReadersLeftShortensTheLockKeyToTheirLatestExpiryAndPublishesNothing() throws Exception {
		String leaving = secret();
		acquireRead(leaving, "60000", "");
		acquireRead(secret(), "10000", "");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.RELEASE_READ, List.of(LOCK, READERS), leaving)).isEqualTo(1L);
			hints.nothingBefore();
		}
		assertThat(get(node, LOCK)).isEqualTo(Script.READERS);
		assertThat(pttl(node, LOCK)).isBetween(1L, 10000L);
		assertThat(pttl(node, READERS)).isBetween(1L, 10000L);
	}

	@Test
	void releaseReadOfNoReaderAnswersZeroAndLeavesAWritersValue() {
		String writer = lockValue();
		node.call("SET", LOCK, writer, "PX", "30000");
		assertThat(evalLong(node, Script.RELEASE_READ, List.of(LOCK, READERS), secret())).isZero();
		assertThat(evalLong(node, Script.RELEASE_READ, List.of(LOCK, READERS), "")).isZero();
		assertThat(get(node, LOCK)).isEqualTo(writer);
	}

	@Test
	void withdrawReadOfTheLastReaderDeletesTheLockKeyAndPublishesNothing() throws Exception {
		String reader = secret();
		acquireRead(reader, "30000", "");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.WITHDRAW_READ, List.of(LOCK, READERS), reader)).isEqualTo(1L);
			hints.nothingBefore();
		}
		assertThat((Long) node.call("EXISTS", LOCK, READERS)).isZero();
		assertThat(evalLong(node, Script.WITHDRAW_READ, List.of(LOCK, READERS), reader)).isZero();
	}

	@Test
	void acquireWriteOnAFreeKeySetsTheValueAnswersATokenAndDeletesOnlyItsOwnMark() {
		String value = lockValue();
		node.call("SET", MARK, "attempt-1", "PX", "20000");
		long token = acquireWrite(value, "30000", "attempt-1");
		assertThat(token).isEqualTo(START);
		assertThat(get(node, LOCK)).isEqualTo(value);
		assertThat(pttl(node, LOCK)).isBetween(1L, 30000L);
		assertThat(counter(node, FENCE)).isEqualTo(token);
		assertThat(get(node, MARK)).isNull();
		node.call("DEL", LOCK);
		node.call("SET", MARK, "attempt-2", "PX", "20000");
		assertThat(acquireWrite(lockValue(), "30000", "attempt-3")).isEqualTo(token + 1);
		assertThat(get(node, MARK)).isEqualTo("attempt-2");
	}

	@Test
	void acquireWriteWhileAReaderIsLiveIsRefusedWithTheReadersMillisAndSetsTheMark() {
		acquireRead(secret(), "30000", "");
		node.call("DEL", LOCK); // the set is checked too
		long reply = acquireWrite(lockValue(), "30000", "attempt-1");
		assertThat(-reply - 1).isBetween(0L, 30000L);
		assertThat(get(node, MARK)).isEqualTo("attempt-1");
		assertThat(pttl(node, MARK)).isBetween(1L, 20000L);
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void acquireWriteWhileTheKeyIsHeldIsRefusedWithTheHoldersMillisAndSetsTheMark() {
		String holder = lockValue();
		node.call("SET", LOCK, holder, "PX", "40000");
		node.call("SET", FENCE, "7");
		long reply = acquireWrite(lockValue(), "30000", "attempt-1");
		assertThat(-reply - 1).as("no counter bits above the ms").isBetween(0L, 40000L);
		assertThat(get(node, MARK)).isEqualTo("attempt-1");
		assertThat(get(node, LOCK)).isEqualTo(holder);
		assertThat(get(node, FENCE)).isEqualTo("7");
	}

	@Test
	void acquireWriteAnswersZeroAndWritesNothingForAnEmptyValueOrAnotherMarker() {
		assertThat(acquireWrite("", "30000", "attempt-1")).isZero();
		node.call("SET", MARKER_KEY, "new-id:1");
		assertThat(evalLong(node, Script.ACQUIRE_WRITE, List.of(LOCK, FENCE, READERS, MARK, MARKER_KEY), lockValue(),
				"30000", RETENTION, "20000", "attempt-1", START_TEXT, "old-id:1", "0"))
			.isZero();
		assertThat((Long) node.call("EXISTS", LOCK, FENCE, MARK)).isZero();
	}

	@Test
	void extendWriteSetsTheTtlButNeverBelowTheLatestLiveReader() {
		String writer = lockValue();
		node.call("SET", LOCK, writer, "PX", "1000");
		node.call("SET", FENCE, "3");
		assertThat(evalLong(node, Script.EXTEND_WRITE, List.of(LOCK, FENCE, READERS), LockValues.secret(writer),
				"30000", RETENTION))
			.isEqualTo(1L);
		assertThat(pttl(node, LOCK)).isBetween(1001L, 30000L);
		assertThat(pttl(node, FENCE)).isBetween(30001L, RETENTION_MS);
		acquireRead(secret(), "90000", LockValues.secret(writer));
		assertThat(evalLong(node, Script.EXTEND_WRITE, List.of(LOCK, FENCE, READERS), LockValues.secret(writer),
				"10000", RETENTION))
			.isEqualTo(1L);
		assertThat(pttl(node, LOCK)).isBetween(30001L, 90000L);
	}

	@Test
	void extendWriteOfAnotherSecretAnswersZero() {
		node.call("SET", LOCK, lockValue(), "PX", "30000");
		assertThat(evalLong(node, Script.EXTEND_WRITE, List.of(LOCK, FENCE, READERS), secret(), "90000", RETENTION))
			.isZero();
		assertThat(pttl(node, LOCK)).isBetween(1L, 30000L);
	}

	@Test
	void releaseWriteWithoutReadersDeletesTheKeyAndPublishesAHint() throws Exception {
		String writer = lockValue();
		node.call("SET", LOCK, writer, "PX", "30000");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.RELEASE_WRITE, List.of(LOCK, READERS), LockValues.secret(writer)))
				.isEqualTo(1L);
			assertThat(hints.next()).isEmpty();
		}
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void releaseWriteAfterADowngradeLeavesReadersUntilTheLatestReader() throws Exception {
		String writer = lockValue();
		node.call("SET", LOCK, writer, "PX", "30000");
		acquireRead(secret(), "20000", LockValues.secret(writer));
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.RELEASE_WRITE, List.of(LOCK, READERS), LockValues.secret(writer)))
				.isEqualTo(1L);
			assertThat(hints.next()).isEmpty();
		}
		assertThat(get(node, LOCK)).isEqualTo(Script.READERS);
		assertThat(pttl(node, LOCK)).isBetween(1L, 20000L);
	}

	@Test
	void releaseWriteOfAnotherSecretAnswersZeroAndPublishesNothing() throws Exception {
		String writer = lockValue();
		node.call("SET", LOCK, writer, "PX", "30000");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.RELEASE_WRITE, List.of(LOCK, READERS), secret())).isZero();
			assertThat(evalLong(node, Script.RELEASE_WRITE, List.of(LOCK, READERS),
					writer.substring(0, LockValues.MIN_SECRET_LENGTH - 1)))
				.isZero();
			hints.nothingBefore();
		}
		assertThat(get(node, LOCK)).isEqualTo(writer);
	}

	@Test
	void clearIntentDeletesOnlyTheWritersOwnMark() {
		node.call("SET", MARK, "attempt-1", "PX", "20000");
		assertThat(evalLong(node, Script.CLEAR_INTENT, List.of(MARK), "attempt-2")).isZero();
		assertThat(evalLong(node, Script.CLEAR_INTENT, List.of(MARK), "")).isZero();
		assertThat(get(node, MARK)).isEqualTo("attempt-1");
		assertThat(evalLong(node, Script.CLEAR_INTENT, List.of(MARK), "attempt-1")).isEqualTo(1L);
		assertThat(get(node, MARK)).isNull();
		assertThat(evalLong(node, Script.CLEAR_INTENT, List.of(MARK), "attempt-1")).isZero();
	}

}
