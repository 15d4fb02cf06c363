package io.github.redlock;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * What the nodes say about one lock, for operators: who holds it on which node and for
 * how long. The owner is the holder's identity ({@code host:pid:thread}); the secret part
 * of a lock value is never shown.
 *
 * @param key the lock's key
 * @param quorum how many nodes make a quorum
 * @param nodes the state on each node, in configuration order
 * @author redlock contributors
 */
public record LockInfo(String key, int quorum, List<NodeState> nodes) {

	/**
	 * Creates an instance.
	 * @param key the lock's key
	 * @param quorum how many nodes make a quorum
	 * @param nodes the state on each node
	 */
	public LockInfo {
		nodes = List.copyOf(nodes);
	}

	@Override
	public String toString() {
		return "LockInfo[key=" + LockKeys.printable(this.key) + ", quorum=" + this.quorum + ", nodes=" + this.nodes
				+ "]";
	}

	/**
	 * Returns the owner that holds the lock on a quorum of nodes, if any: the holder
	 * whose lease is in force.
	 * @return the owner identity
	 */
	@SuppressWarnings("NullAway") // a node's owner is set whenever its holding is
	public Optional<String> holder() {
		Map<String, Integer> counts = new HashMap<>();
		for (NodeState node : this.nodes) {
			if (node.holding() != null) {
				if (counts.merge(node.holding(), 1, Integer::sum) >= this.quorum) {
					return Optional.of(node.owner());
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * Returns whether any node holds the lock.
	 * @return whether the lock is held anywhere
	 */
	public boolean isHeldAnywhere() {
		return this.nodes.stream().anyMatch((node) -> node.owner() != null);
	}

	/**
	 * The lock as one node sees it.
	 *
	 * @param node the node, as a URI without credentials
	 * @param owner the holder's identity, or {@code null} if the lock is free there
	 * @param holding an opaque identifier of the holding acquisition (equal on every node
	 * that one acquisition wrote), or {@code null}
	 * @param remaining how long the lock lives on there, or {@code null} if free
	 * @param fencingCounter the key's fencing counter there, or 0 if it has none
	 * @param error why the node did not answer, or {@code null}
	 */
	public record NodeState(String node, @Nullable String owner, @Nullable String holding, @Nullable Duration remaining,
			long fencingCounter, @Nullable String error) {

		@Override
		@SuppressWarnings("NullAway") // remaining is set whenever the owner is
		public String toString() {
			if (this.error != null) {
				return this.node + ": " + this.error;
			}
			return this.node
					+ ": " + ((this.owner != null)
							? "held by " + this.owner + " for " + this.remaining.toMillis() + "ms more" : "free")
					+ ", fencing counter " + this.fencingCounter;
		}

	}

}
