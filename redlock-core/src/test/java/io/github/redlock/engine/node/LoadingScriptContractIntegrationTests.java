package io.github.redlock.engine.node;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.kinds.LockKinds;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.redlock.engine.node.ScriptContractSupport.RETENTION;
import static io.github.redlock.engine.node.ScriptContractSupport.evalLong;
import static io.github.redlock.engine.node.ScriptContractSupport.lockValue;
import static io.github.redlock.engine.node.ScriptContractSupport.pttl;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract every lock-path script keeps with {@link NodeClient}, which sends each of
 * them by its text on a (re)connect with the node marker as every key and the arguments
 * {@code "", "1", "1", ""}, so that the node knows them: each returns before it writes
 * anything. And the read-write and permit scripts' shared rule: an empty ARGV[1] returns
 * at once, writing nothing.
 */
class LoadingScriptContractIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(1);

	static final String MARKER_KEY = "redlock:marker";

	RedisNode node;

	@BeforeEach
	void emptyNode() {
		this.node = fleet.node(0);
		this.node.call("FLUSHALL");
	}

	@Test
	void everyLockPathScriptSentAsNodeClientLoadsItWritesNothing() {
		node.call("SET", MARKER_KEY, "abcdefghijklmnop:1795000000000");
		for (Script script : LockKinds.SCRIPTS) {
			long reply = evalLong(node, script, List.of(MARKER_KEY, MARKER_KEY, MARKER_KEY), "", "1", "1", "");
			long expected = (script == Script.QUEUE_WAITER) ? -3 : 0;
			assertThat(reply).as("%s's reply", script.name()).isEqualTo(expected);
			assertThat(node.call("GET", MARKER_KEY)).as("the marker after %s", script.name())
				.isEqualTo("abcdefghijklmnop:1795000000000");
			assertThat(pttl(node, MARKER_KEY)).as("the marker's ttl after %s", script.name()).isEqualTo(-1L);
			assertThat((Long) node.call("DBSIZE")).as("keys after %s", script.name()).isEqualTo(1L);
		}
	}

	@Test
	void everySharedLockScriptWithAnEmptyArgv1AnswersZeroAndChangesNoKey() {
		String lock = "redlock:lock:doc";
		String fence = "redlock:fence:doc";
		String readers = "redlock:readers:doc";
		String mark = "redlock:intent:doc";
		String holders = "redlock:permits:pool";
		String expiries = "redlock:permit-expiries:pool";
		node.call("SET", MARKER_KEY, "m");
		node.call("SET", lock, lockValue(), "PX", "60000");
		node.call("SET", fence, "5", "PX", "60000");
		node.call("ZADD", readers, "99999999999999", LockValues.secret(lockValue()));
		node.call("SET", mark, "attempt", "PX", "60000");
		node.call("HSET", holders, "0", lockValue());
		node.call("ZADD", expiries, "99999999999999", "0");
		Map<String, Object> before = dump();
		for (Script script : List.of(Script.ACQUIRE_READ, Script.EXTEND_READ, Script.RAISE_READ, Script.RELEASE_READ,
				Script.WITHDRAW_READ, Script.ACQUIRE_WRITE, Script.EXTEND_WRITE, Script.RELEASE_WRITE,
				Script.CLEAR_INTENT, Script.ACQUIRE_PERMIT, Script.EXTEND_PERMIT, Script.RAISE_PERMIT,
				Script.RELEASE_PERMIT)) {
			assertThat(script.sharedLocks()).isTrue();
			List<String> keys = script.name().contains("permit") ? List.of(holders, expiries, fence, MARKER_KEY)
					: List.of(lock, fence, readers, mark, MARKER_KEY);
			if (script == Script.CLEAR_INTENT) {
				keys = List.of(mark);
			}
			assertThat(evalLong(node, script, keys, "", "30000", RETENTION, "3", "0", "m", "0"))
				.as("%s's reply", script.name())
				.isZero();
			assertThat(dump()).as("the keys after %s", script.name()).isEqualTo(before);
		}
	}

	/** Every key's type and serialized value (not its ttl, which runs). */
	private Map<String, Object> dump() {
		Map<String, Object> keys = new TreeMap<>();
		for (Object key : (List<?>) node.call("KEYS", "*")) {
			keys.put((String) key,
					List.of(node.call("TYPE", (String) key), String.valueOf(node.call("DUMP", (String) key))));
		}
		return keys;
	}

}
