package io.github.redlock.engine.node;

/**
 * How nodes that restarted are kept out of quorums: the spec's "delayed restart", done by
 * the client.
 *
 * @param enabled whether restarted nodes are kept out at all
 * @param guardNanos how long after a restart a node counts toward no quorum: the maximum
 * TTL plus its drift
 * @param markerKey the key each node keeps while it keeps its data
 * @author redlock contributors
 */
public record RestartGuard(boolean enabled, long guardNanos, String markerKey) {

	// unused by the engine, whose guard always has the marker key
	@SuppressWarnings("NullAway")
	static final RestartGuard DISABLED = new RestartGuard(false, 0, null);

}
