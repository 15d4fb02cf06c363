package io.github.redlock.engine.node;

import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The restart guard's decision for one check of one node, from what the node reported:
 * whether it restarted or lost its data less than the guard time ago, since when, and the
 * least fencing token it may hand out from now on (its floor). A pure function of its
 * inputs, so that every case is unit-tested without a server; {@link NodeTrust} runs the
 * check and acts on the decision.
 * <p>
 * <b>Invariants.</b> This class alone decides a node's guard and floor. A node is guarded
 * when (in this order) its uptime is below the guard time and its marker is older than
 * that uptime (it restarted with its data: guarded from its start), when the marker this
 * client knew is gone or replaced (it lost its data: guarded from now, since when it
 * happened is not known), or when the marker is younger than the guard time (new, flushed
 * or restarted empty: guarded from the marker's creation or the start, whichever is
 * later). The floor is the node's clock at the later of its start and its marker's
 * creation, plus the guard time, in microseconds.
 * <p>
 * Why the floor keeps tokens rising: a node may come back with old data (an RDB snapshot
 * or an AOF fsynced every second, after a crash), its counters as they were long before;
 * or empty, or flushed. Every token handed out before that happened was handed out before
 * it, at some time {@code t}, and is at most {@code t + s} in microseconds, {@code s}
 * being how far the nodes' clocks may be ahead of true time: counters start from a node's
 * clock (rounded down), floors are a node's clock reading, and they grow by one per
 * acquisition, far slower than a million a second. The guard keeps the node out of every
 * quorum until the guard time has passed since it came back, by the client's monotonic
 * clock, so the floor, taken on the node's clock, is at least {@code t + guard - s}. A
 * token at or above the floor is therefore above every earlier token when
 * {@code guard > 2s}: a maximum TTL well above twice the clock skew, which
 * {@code RedlockSettings} asks for. The acquire script lifts a counter below the floor to
 * it, so a stale counter never decides a token; a counter written since the node came
 * back is above the floor already and is not touched. Clients derive the floor from the
 * node's uptime, which is whole seconds, so they may differ by a second: harmless, since
 * a token is never below any of their floors.
 *
 * @param cause why the node sits out, or {@code null} if it counts
 * @param sinceNanos when what keeps it out happened, on the client's monotonic clock
 * ({@link System#nanoTime()}); meaningless when {@code cause} is {@code null}
 * @param floorMicros the least token the node may hand out
 * @author redlock contributors
 */
record RestartDecision(NodeTrust.@Nullable GuardCause cause, long sinceNanos, long floorMicros) {

	/**
	 * Decides from one check of a node.
	 * @param nowNanos when the check's answer came, on the client's monotonic clock
	 * @param uptimeSeconds the server's uptime, from {@code INFO}
	 * @param marker the node's marker now: an id, a colon, then its creation time in the
	 * node's milliseconds
	 * @param created whether this check created the marker
	 * @param knownMarker the marker this client saw on its last check, or {@code null}
	 * @param nodeMicros the node's clock, from {@code TIME}, in microseconds
	 * @param guardNanos how long a node that restarted or lost its data sits out
	 * @return the decision
	 */
	static RestartDecision judge(long nowNanos, long uptimeSeconds, String marker, boolean created,
			@Nullable String knownMarker, long nodeMicros, long guardNanos) {
		long createdMillis = createdMillis(marker);
		long nodeMillis = nodeMicros / 1000;
		long markerAgeNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, nodeMillis - createdMillis));
		long uptimeNanos = TimeUnit.SECONDS.toNanos(uptimeSeconds);
		long floor = floorMicros(nodeMicros, uptimeSeconds, createdMillis, guardNanos);
		if (uptimeNanos < guardNanos && uptimeNanos + TimeUnit.SECONDS.toNanos(1) <= markerAgeNanos && !created) {
			// the marker outlived a recent restart: the data was kept, the restart is
			// news
			return new RestartDecision(NodeTrust.GuardCause.RESTARTED, nowNanos - uptimeNanos, floor);
		}
		if (knownMarker != null && !knownMarker.equals(marker)) {
			return new RestartDecision(NodeTrust.GuardCause.MARKER_CHANGED, nowNanos, floor);
		}
		if (markerAgeNanos < guardNanos) {
			// first sight of a young marker: a new node, or one flushed or restarted
			// empty
			return new RestartDecision(NodeTrust.GuardCause.NEW_OR_FLUSHED,
					nowNanos - Math.min(markerAgeNanos, uptimeNanos), floor);
		}
		return new RestartDecision(null, 0, floor);
	}

	private static long floorMicros(long nodeMicros, long uptimeSeconds, long createdMillis, long guardNanos) {
		long startMicros = nodeMicros - TimeUnit.SECONDS.toMicros(uptimeSeconds);
		long createdMicros = (createdMillis == Long.MAX_VALUE) ? nodeMicros
				: Math.min(nodeMicros, TimeUnit.MILLISECONDS.toMicros(createdMillis));
		return Math.max(startMicros, createdMicros) + TimeUnit.NANOSECONDS.toMicros(guardNanos);
	}

	/**
	 * Returns when a marker was created, in the node's milliseconds; an unreadable one as
	 * created just now ({@link Long#MAX_VALUE}).
	 */
	static long createdMillis(String marker) {
		int colon = marker.lastIndexOf(':');
		try {
			return Long.parseLong(marker.substring(colon + 1));
		}
		catch (RuntimeException ex) {
			return Long.MAX_VALUE;
		}
	}

}
