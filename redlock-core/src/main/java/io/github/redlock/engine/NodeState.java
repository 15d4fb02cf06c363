package io.github.redlock.engine;

/**
 * Where one node (or cluster member) stands toward the quorum, as the registry's
 * connection events and the restart guard say; no node is asked.
 *
 * @author redlock contributors
 * @see RedlockRegistry#nodeStates()
 * @see RegistryListener#nodeChanged(String, NodeState, String)
 */
public enum NodeState {

	/** Connected and counting toward quorums. */
	USABLE,

	/**
	 * Connected but counting toward no quorum: kept out by the restart guard, an unsteady
	 * clock, a missing permission, or because it is a duplicate or may evict keys.
	 */
	OUT,

	/** Disconnected: down or unreachable, and being reconnected. */
	DOWN

}
