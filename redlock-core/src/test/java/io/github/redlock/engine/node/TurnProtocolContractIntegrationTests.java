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
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The turn protocol as the Java side writes and reads it ({@link TurnProtocol}), spoken
 * to the scripts on a real node: whatever TurnProtocol encodes, the scripts understand,
 * and whatever they answer or publish, TurnProtocol reads. The scripts' own contracts,
 * with literal arguments and codes, are {@link QueueScriptContractIntegrationTests}'.
 */
class TurnProtocolContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	static final String LOCK = "redlock:lock:turns";

	static final String QUEUE = "redlock:waiters:turns";

	RedisNode node;

	@BeforeEach
	void emptyNode() {
		this.node = fleet.node(0);
		this.node.call("FLUSHALL");
	}

	@Test
	void aLineQueuedWhileTheKeyIsHeldIsNamedByTheRelease() throws Exception {
		String value = lockValue();
		this.node.call("SET", LOCK, value, "PX", "30000");
		assertThat(queue(TurnProtocol.queue(1000, "second", 60_000))).isEqualTo(TurnProtocol.QUEUED);
		assertThat(queue(TurnProtocol.queue(999, "first", 60_000))).isEqualTo(TurnProtocol.QUEUED);
		try (Subscriber hints = new Subscriber(this.node, LOCK)) {
			assertThat(release(value, "77", TurnProtocol.idle("holder"))).isEqualTo(TurnProtocol.RELEASED_NAMED);
			TurnProtocol.Hint hint = TurnProtocol.hint(hints.next());
			assertThat(hint).isEqualTo(new TurnProtocol.Hint("77", "first", true));
			assertThat(hint.turnOf("first")).isTrue();
			assertThat(hint.turnOf("second")).isFalse();
		}
	}

	@Test
	void aLineWithWaitersIsQueuedBehindTheOneItNamesAndTheLastNamedHearsNoMore() throws Exception {
		String value = lockValue();
		this.node.call("SET", LOCK, value, "PX", "30000");
		queue(TurnProtocol.queue(1000, "other", 60_000));
		try (Subscriber hints = new Subscriber(this.node, LOCK)) {
			assertThat(release(value, "78", TurnProtocol.queueBehind("holder", 60_000, 2000, false)))
				.isEqualTo(TurnProtocol.RELEASED_NAMED);
			assertThat(TurnProtocol.hint(hints.next())).isEqualTo(new TurnProtocol.Hint("78", "other", true));
		}
		String next = lockValue();
		this.node.call("SET", LOCK, next, "PX", "30000");
		try (Subscriber hints = new Subscriber(this.node, LOCK)) {
			assertThat(release(next, "79", TurnProtocol.look("other"))).isEqualTo(TurnProtocol.RELEASED_NAMED);
			assertThat(TurnProtocol.hint(hints.next())).isEqualTo(new TurnProtocol.Hint("79", "holder", false));
		}
	}

	@Test
	void aLineThatKeepsTheTurnPublishesNothingAndLeavesTheQueue() {
		String value = lockValue();
		this.node.call("SET", LOCK, value, "PX", "30000");
		queue(TurnProtocol.queue(1000, "other", 60_000));
		String before = get(this.node, QUEUE);
		assertThat(release(value, "80", TurnProtocol.keep("holder"))).isEqualTo(TurnProtocol.RELEASED_KEPT);
		assertThat(get(this.node, LOCK)).isNull();
		assertThat(get(this.node, QUEUE)).isEqualTo(before);
	}

	@Test
	void aReleaseWithNobodyQueuedPublishesTheTokenAloneWhichNamesNoLine() throws Exception {
		String value = lockValue();
		this.node.call("SET", LOCK, value, "PX", "30000");
		try (Subscriber hints = new Subscriber(this.node, LOCK)) {
			assertThat(release(value, "81", TurnProtocol.look("holder"))).isEqualTo(TurnProtocol.RELEASED);
			TurnProtocol.Hint hint = TurnProtocol.hint(hints.next());
			assertThat(hint).isEqualTo(new TurnProtocol.Hint("81", null, false));
			assertThat(hint.turnOf("anyone")).isTrue();
		}
	}

	@Test
	void queueingOnAFreeKeyQueuesNothingAndUnqueueingTakesTheLineOut() {
		assertThat(queue(TurnProtocol.queue(1000, "line", 60_000))).isEqualTo(TurnProtocol.QUEUE_FREE);
		assertThat(get(this.node, QUEUE)).isNull();
		this.node.call("SET", LOCK, lockValue(), "PX", "30000");
		queue(TurnProtocol.queue(1000, "line", 60_000));
		assertThat(get(this.node, QUEUE)).contains("line");
		assertThat(queue(TurnProtocol.unqueue("line"))).isEqualTo(TurnProtocol.QUEUED);
		assertThat(get(this.node, QUEUE)).isNull();
		assertThat(queue(new String[] { "", "line", "0" })).isEqualTo(TurnProtocol.QUEUE_NOTHING);
	}

	private long queue(String[] args) {
		return evalLong(this.node, Script.QUEUE_WAITER, List.of(LOCK, QUEUE), args);
	}

	private long release(String value, String token, String spec) {
		return evalLong(this.node, Script.RELEASE, List.of(LOCK, QUEUE), LockValues.secret(value), token, spec);
	}

}
