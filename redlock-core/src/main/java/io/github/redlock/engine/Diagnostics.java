package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;

import io.github.redlock.LockInfo;
import io.github.redlock.LockKeys;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;

/**
 * What operators and health checks ask of the nodes: who holds a lock where
 * ({@link #inspect}) and which nodes count toward a quorum now ({@link #checkNodes}).
 * Each asks every node at once and answers within one call bound; nothing on the lock
 * path uses it.
 *
 * @author redlock contributors
 */
final class Diagnostics {

	private final NodeFleet fleet;

	private final KeyLayout keys;

	Diagnostics(NodeFleet fleet, KeyLayout keys) {
		this.fleet = fleet;
		this.keys = keys;
	}

	LockInfo inspect(String key) {
		String[] nodeKeys = this.keys.nodeKeys(key);
		List<LockInfo.NodeState> result = this.fleet.askEveryNode(
				(node) -> node.evalList(Script.INSPECT, nodeKeys)
					.thenApply((reply) -> nodeState(node, reply))
					.exceptionally((ex) -> new LockInfo.NodeState(node.toString(), null, null, null, 0,
							node.classify(ex).describe())),
				(node) -> new LockInfo.NodeState(node.toString(), null, null, null, 0, "no answer"),
				"inspecting lock '" + LockKeys.printable(key) + "'");
		return new LockInfo(key, this.fleet.quorum(), result);
	}

	private static LockInfo.NodeState nodeState(QuorumMember node, List<Object> reply) {
		String value = (String) reply.get(0);
		long pttl = (reply.get(1) instanceof Long millis) ? millis : -2;
		long counter = (reply.get(2) != null) ? Long.parseLong((String) reply.get(2)) : 0;
		if (value == null) {
			return new LockInfo.NodeState(node.toString(), null, null, null, counter, null);
		}
		int separator = value.indexOf(':');
		// readers of a read-write lock hold the key as a whole, each with its own entry
		String owner = (separator >= 0) ? value.substring(separator + 1)
				: Script.READERS.equals(value) ? "readers (a read-write lock's read locks)" : "unknown owner";
		String secret = (separator >= 0) ? value.substring(0, separator) : value;
		if (separator == LockValues.SECRET_LENGTH + 1 && LockValues.isMarked(secret)) {
			// marked by a waiting process that queued while it held the key
			// (Script.QUEUE_WAITER)
			secret = LockValues.secret(secret);
		}
		return new LockInfo.NodeState(node.toString(), owner, LockValues.fingerprint(secret),
				Duration.ofMillis(Math.max(0, pttl)), counter, null);
	}

	List<NodeStatus> checkNodes() {
		return this.fleet.askEveryNode(QuorumMember::check,
				(node) -> new NodeStatus(node.toString(), false, null, "no answer"), "checking the redlock nodes");
	}

}
