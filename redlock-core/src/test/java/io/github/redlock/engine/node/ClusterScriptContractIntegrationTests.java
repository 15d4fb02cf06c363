package io.github.redlock.engine.node;

import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.engine.node.ScriptContractSupport.eval;
import static io.github.redlock.engine.node.ScriptContractSupport.get;
import static io.github.redlock.engine.node.ScriptContractSupport.nodeMillis;
import static io.github.redlock.engine.node.ScriptContractSupport.pttl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contracts of a cluster slot's restart guard scripts (SLOT_MARKER, SLOT_STAMP), as
 * the comments above them in {@code cluster.lua} state them, pinned on a real node: what
 * a script does within one slot does not depend on the cluster around it.
 */
class ClusterScriptContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	static final KeyLayout KEYS = new KeyLayout("redlock:", true);

	static final String MARKER = KEYS.slotMarkerKey(42);

	static final String OWNER = KEYS.slotOwnerKey(42);

	RedisNode node;

	@BeforeEach
	void emptyNode() {
		this.node = fleet.node(0);
		this.node.call("FLUSHALL");
	}

	@Test
	void slotMarkerAMissingMarkerIsCreatedAsTheIdAndTheNodeTimeInMillisWithThisMastersStamp() {
		long before = nodeMillis(this.node);
		List<?> reply = (List<?>) eval(this.node, Script.SLOT_MARKER, List.of(MARKER, OWNER), "abcdefghijklmnop",
				"node-b replid-b");
		long after = nodeMillis(this.node);
		String marker = (String) reply.get(0);
		assertThat(marker).startsWith("abcdefghijklmnop:");
		assertThat(Long.parseLong(marker.substring("abcdefghijklmnop:".length()))).isBetween(before, after);
		assertThat(get(this.node, MARKER)).isEqualTo(marker);
		assertThat(pttl(this.node, MARKER)).isEqualTo(-1L);
		long micros = Long.parseLong((String) reply.get(1)) * 1_000_000L + Long.parseLong((String) reply.get(2));
		assertThat(micros / 1000).isBetween(before, after);
		assertThat(reply.get(3)).isEqualTo(1L);
		assertThat(reply).hasSize(5);
		assertThat(reply.get(4)).as("no stamp was read").isNull();
		assertThat(get(this.node, OWNER)).as("the stamp written with the marker").isEqualTo("node-b replid-b");
	}

	@Test
	void slotMarkerAnExistingMarkerIsKeptAndTheStampRead() {
		this.node.call("SET", MARKER, "old:1");
		this.node.call("SET", OWNER, "node-a replid-a");
		List<?> reply = (List<?>) eval(this.node, Script.SLOT_MARKER, List.of(MARKER, OWNER), "abcdefghijklmnop",
				"node-b replid-b");
		assertThat(reply.get(0)).isEqualTo("old:1");
		assertThat(reply.get(3)).isEqualTo(0L);
		assertThat(reply.get(4)).isEqualTo("node-a replid-a");
		assertThat(get(this.node, MARKER)).isEqualTo("old:1");
		assertThat(get(this.node, OWNER)).as("the stamp is the check's to judge").isEqualTo("node-a replid-a");
	}

	@Test
	void slotStampWritesTheStampAndKeepsTheMarkerWhenNotAskedToReplaceIt() {
		this.node.call("SET", MARKER, "old:1");
		this.node.call("SET", OWNER, "node-a replid-a");
		Object marker = eval(this.node, Script.SLOT_STAMP, List.of(MARKER, OWNER), "node-a replid-a", "node-b replid-b",
				"");
		assertThat(marker).isEqualTo("old:1");
		assertThat(get(this.node, OWNER)).isEqualTo("node-b replid-b");
	}

	@Test
	void slotStampReplacesTheMarkerWithTheIdAndTheNodeTimeWhenAsked() {
		this.node.call("SET", MARKER, "old:1");
		long before = nodeMillis(this.node);
		Object marker = eval(this.node, Script.SLOT_STAMP, List.of(MARKER, OWNER), "", "node-b replid-b",
				"qrstuvwxyzabcdef");
		long after = nodeMillis(this.node);
		assertThat((String) marker).startsWith("qrstuvwxyzabcdef:");
		assertThat(Long.parseLong(((String) marker).substring("qrstuvwxyzabcdef:".length()))).isBetween(before, after);
		assertThat(get(this.node, MARKER)).isEqualTo(marker);
		assertThat(get(this.node, OWNER)).isEqualTo("node-b replid-b");
	}

	@Test
	void slotStampDoesNothingWhenTheStampIsNoLongerTheOneRead() {
		this.node.call("SET", MARKER, "theirs:1");
		this.node.call("SET", OWNER, "node-c replid-c");
		Object marker = eval(this.node, Script.SLOT_STAMP, List.of(MARKER, OWNER), "node-a replid-a", "node-b replid-b",
				"qrstuvwxyzabcdef");
		assertThat(marker).as("another client acted on the change first").isEqualTo("theirs:1");
		assertThat(get(this.node, OWNER)).isEqualTo("node-c replid-c");
	}

}
