package io.github.redlock.engine.node;

import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.ScriptContractSupport.Subscriber;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.engine.node.ScriptContractSupport.evalLong;
import static io.github.redlock.engine.node.ScriptContractSupport.get;
import static io.github.redlock.engine.node.ScriptContractSupport.lockValue;
import static io.github.redlock.engine.node.ScriptContractSupport.marked;
import static io.github.redlock.engine.node.ScriptContractSupport.nodeMillis;
import static io.github.redlock.engine.node.ScriptContractSupport.pttl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contracts of RELEASE and QUEUE_WAITER, the scripts that keep a key's queue of
 * waiting processes ({@code "<stamp>,<line id>,<expiry>;"} entries ordered by stamp then
 * id) and the release hints, as their comments in {@link Script} state them, pinned on a
 * real node.
 */
class QueueScriptContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	static final String LOCK = "redlock:lock:order";

	static final String QUEUE = "redlock:waiters:order";

	RedisNode node;

	@BeforeEach
	void emptyNode() {
		this.node = fleet.node(0);
		this.node.call("FLUSHALL");
	}

	long release(String secret, String token, String spec) {
		return evalLong(this.node, Script.RELEASE, List.of(LOCK, QUEUE), secret, token, spec);
	}

	long queueWaiter(String stamp, String id, String waitMillis) {
		return evalLong(this.node, Script.QUEUE_WAITER, List.of(LOCK, QUEUE), stamp, id, waitMillis);
	}

	/** Writes a queue whose entries all live for another minute. */
	void queue(String... stampAndIds) {
		long expiry = nodeMillis(this.node) + 60_000;
		StringBuilder text = new StringBuilder();
		for (String entry : stampAndIds) {
			text.append(entry).append(',').append(expiry).append(';');
		}
		this.node.call("SET", QUEUE, text.toString(), "PX", "60000");
	}

	/** The queue's entries as "stamp,id", in order. */
	List<String> queued() {
		String text = get(this.node, QUEUE);
		if (text == null) {
			return List.of();
		}
		return java.util.Arrays.stream(text.split(";"))
			.map((entry) -> entry.substring(0, entry.lastIndexOf(',')))
			.toList();
	}

	String hold() {
		String value = lockValue();
		this.node.call("SET", LOCK, value, "PX", "30000");
		return value;
	}

	@Test
	void releaseWithTheSecretDeletesTheKeyAndWithoutArgv3PublishesTheToken() throws Exception {
		String value = hold();
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(evalLong(node, Script.RELEASE, List.of(LOCK), LockValues.secret(value), "41")).isEqualTo(1L);
			assertThat(hints.next()).isEqualTo("41");
			String other = hold();
			assertThat(evalLong(node, Script.RELEASE, List.of(LOCK), LockValues.secret(other))).isEqualTo(1L);
			assertThat(hints.next()).isEmpty();
		}
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void releaseWithoutTheSecretAnswersZeroKeepsTheKeyAndPublishesNothing() throws Exception {
		String value = hold();
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(lockValue()), "41", "line,,,,")).isZero();
			assertThat(release("", "41", "line,,,,")).isZero();
			hints.nothingBefore();
		}
		assertThat(get(node, LOCK)).isEqualTo(value);
		node.call("DEL", LOCK);
		assertThat(release(LockValues.secret(value), "41", "line,,,,")).isZero();
	}

	@Test
	void releaseNeverMatchesWithASecretShorterThanTheMinimumEvenWhenItIsAPrefix() {
		String value = hold();
		String shortSecret = value.substring(0, LockValues.MIN_SECRET_LENGTH - 1);
		assertThat(release(shortSecret, "41", "line,,,,")).isZero();
		assertThat(get(node, LOCK)).isEqualTo(value);
		assertThat(release(value.substring(0, LockValues.MIN_SECRET_LENGTH), "41", "line,,,,")).isEqualTo(1L);
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void releaseOfALineThatKeepsTheTurnAnswersThreePublishesNothingAndLeavesTheQueue() throws Exception {
		String value = marked(hold());
		node.call("SET", LOCK, value, "PX", "30000");
		queue("1000,other");
		String before = get(node, QUEUE);
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,,,1,")).isEqualTo(3L);
			hints.nothingBefore();
		}
		assertThat(get(node, LOCK)).isNull();
		assertThat(get(node, QUEUE)).isEqualTo(before);
	}

	@Test
	void releaseOfAnUnmarkedValueDoesNotLookAtTheQueueAndPublishesNothing() throws Exception {
		String value = hold();
		queue("1000,other");
		String before = get(node, QUEUE);
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,,,,")).isEqualTo(1L);
			hints.nothingBefore();
		}
		assertThat(get(node, LOCK)).isNull();
		assertThat(get(node, QUEUE)).isEqualTo(before);
	}

	@Test
	void releaseOfAMarkedValueNamesTheHeadWithAPlusWhenMoreStayQueued() throws Exception {
		String value = marked(hold());
		node.call("SET", LOCK, value, "PX", "30000");
		queue("1000,first", "2000,second");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,,,,")).isEqualTo(2L);
			assertThat(hints.next()).isEqualTo("41@first+");
		}
		assertThat(get(node, LOCK)).isNull();
		assertThat(queued()).containsExactly("2000,second");
		assertThat(pttl(node, QUEUE)).isBetween(1L, 60000L);
	}

	@Test
	void releaseNamingTheLastQueuedLineHasNoPlusAndDeletesTheQueue() throws Exception {
		String value = marked(hold());
		node.call("SET", LOCK, value, "PX", "30000");
		queue("1000,first");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,,,,")).isEqualTo(2L);
			assertThat(hints.next()).isEqualTo("41@first");
		}
		assertThat(get(node, QUEUE)).isNull();
	}

	@Test
	void releaseOfAnUnmarkedValueLooksWhenTheClientSaysSo() throws Exception {
		String value = hold();
		queue("1000,first");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,,,,1")).isEqualTo(2L);
			assertThat(hints.next()).isEqualTo("41@first");
		}
		assertThat(get(node, QUEUE)).isNull();
	}

	@Test
	void releaseOfALineWithWaitersQueuesItByItsStampAfterNamingTheHead() throws Exception {
		String value = marked(hold());
		node.call("SET", LOCK, value, "PX", "30000");
		queue("1000,first", "3000,third");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,20000,2000,,")).isEqualTo(2L);
			assertThat(hints.next()).isEqualTo("41@first+");
		}
		assertThat(queued()).containsExactly("2000,line", "3000,third");
		String own = get(node, QUEUE).split(";")[0];
		long expiry = Long.parseLong(own.substring(own.lastIndexOf(',') + 1));
		assertThat(expiry - nodeMillis(node)).isBetween(0L, 20000L);
	}

	/**
	 * The comment gives ARGV[3]'s clock as "the client's clock in ms, or empty", apart
	 * from the wait: the line is queued again by the node's clock then. Failed before the
	 * fix: a wait without a clock failed the script with "bad argument #2 to 'format'"
	 * after it deleted the key (no hint, the queue not updated, an error reply). The
	 * engine sends the clock whenever it sends a wait (Waiting#releaseArgs).
	 */
	@Test
	void releaseOfALineWithWaitersButNoClockStillNamesTheHead() throws Exception {
		String value = marked(hold());
		node.call("SET", LOCK, value, "PX", "30000");
		queue("1000,first");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,20000,,,")).isEqualTo(2L);
			assertThat(hints.next()).startsWith("41@first");
		}
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void releaseOfAMarkedValueWithOnlyItsOwnOrDeadEntriesPublishesTheTokenAndDeletesTheQueue() throws Exception {
		String value = marked(hold());
		node.call("SET", LOCK, value, "PX", "30000");
		long past = nodeMillis(node) - 1000;
		node.call("SET", QUEUE, "1000,line," + (past + 61_000) + ";2000,gone," + past + ";", "PX", "60000");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,,,,")).isEqualTo(1L);
			assertThat(hints.next()).isEqualTo("41");
		}
		assertThat(get(node, QUEUE)).isNull();
	}

	@Test
	void releaseOfAMarkedValueWithoutAQueuePublishesTheTokenAlone() throws Exception {
		String value = marked(hold());
		node.call("SET", LOCK, value, "PX", "30000");
		try (Subscriber hints = new Subscriber(node, LOCK)) {
			assertThat(release(LockValues.secret(value), "41", "line,,,,")).isEqualTo(1L);
			assertThat(hints.next()).isEqualTo("41");
		}
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void queueWaiterWithAnEmptyStampAnswersMinusThreeAndWritesNothing() {
		String value = hold();
		assertThat(queueWaiter("", "line", "60000")).isEqualTo(-3L);
		assertThat(get(node, QUEUE)).isNull();
		assertThat(get(node, LOCK)).isEqualTo(value);
	}

	@Test
	void queueWaiterOnAFreeKeyAnswersMinusTwoAndQueuesNothing() {
		assertThat(queueWaiter("1000", "line", "60000")).isEqualTo(-2L);
		assertThat(get(node, QUEUE)).isNull();
		assertThat(get(node, LOCK)).isNull();
	}

	@Test
	void queueWaiterQueuesLinesInOrderOfStampThenIdExpiringWithTheLastEntry() {
		hold();
		assertThat(queueWaiter("3000", "c", "30000")).isEqualTo(1L);
		assertThat(queueWaiter("1000", "b", "60000")).isEqualTo(1L);
		assertThat(queueWaiter("1000", "a", "10000")).isEqualTo(1L);
		assertThat(queued()).containsExactly("1000,a", "1000,b", "3000,c");
		assertThat(pttl(node, QUEUE)).isGreaterThan(30000L).isLessThanOrEqualTo(60000L);
		long now = nodeMillis(node);
		for (String entry : get(node, QUEUE).split(";")) {
			long expiry = Long.parseLong(entry.substring(entry.lastIndexOf(',') + 1));
			assertThat(expiry - now).isBetween(0L, 60000L);
		}
	}

	@Test
	void queueWaiterRequeuesALineInItsPlaceOnceAndDropsDeadEntries() {
		hold();
		long past = nodeMillis(node) - 1000;
		node.call("SET", QUEUE, "500,dead," + past + ";", "PX", "60000");
		queueWaiter("1000", "a", "60000");
		queueWaiter("2000", "b", "60000");
		assertThat(queueWaiter("1000", "a", "60000")).isEqualTo(1L);
		assertThat(queued()).containsExactly("1000,a", "2000,b");
		assertThat(queueWaiter("3000", "a", "60000")).isEqualTo(1L);
		assertThat(queued()).containsExactly("2000,b", "3000,a");
	}

	@Test
	void queueWaiterWithWaitZeroTakesTheLineOutAndDeletesAnEmptyQueue() {
		String value = hold();
		queueWaiter("1000", "a", "60000");
		queueWaiter("2000", "b", "60000");
		node.call("SET", LOCK, value, "PX", "30000");
		assertThat(queueWaiter("1000", "a", "0")).isEqualTo(1L);
		assertThat(queued()).containsExactly("2000,b");
		assertThat(get(node, LOCK)).as("taking a line out marks nothing").isEqualTo(value);
		node.call("DEL", LOCK);
		assertThat(queueWaiter("2000", "b", "0")).as("the key free").isEqualTo(-2L);
		assertThat(get(node, QUEUE)).isNull();
	}

	@Test
	void queueWaiterMarksAnUnmarkedValueAfterTheSecretKeepingItsTtl() {
		String value = hold();
		node.call("PEXPIRE", LOCK, "45000");
		assertThat(queueWaiter("1000", "a", "60000")).isEqualTo(1L);
		String after = get(node, LOCK);
		assertThat(after).isEqualTo(marked(value));
		assertThat(LockValues.isMarked(after)).isTrue();
		assertThat(LockValues.secret(after)).isEqualTo(LockValues.secret(value));
		assertThat(pttl(node, LOCK)).isBetween(30001L, 45000L);
	}

	@Test
	void queueWaiterLeavesAMarkedValueAndAReadersValueAsTheyAre() {
		String value = marked(lockValue());
		node.call("SET", LOCK, value, "PX", "30000");
		assertThat(queueWaiter("1000", "a", "60000")).isEqualTo(1L);
		assertThat(get(node, LOCK)).isEqualTo(value);
		node.call("SET", LOCK, Script.READERS, "PX", "30000");
		assertThat(queueWaiter("2000", "b", "60000")).isEqualTo(1L);
		assertThat(get(node, LOCK)).isEqualTo(Script.READERS);
	}

}
