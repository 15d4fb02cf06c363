package io.github.redlock.engine.quorum;

import java.util.Arrays;
import java.util.List;

import io.github.redlock.engine.node.QuorumMember;

/**
 * The quorum of a fleet of N nodes: a majority, {@code N/2+1}, whatever N is. Any two
 * majorities share a node, so two owners can never both hold one.
 * <p>
 * <b>Invariants.</b> A lock is acquired (and an extension made) only when a majority of
 * the nodes agreed and time is left: {@code validity = ttl - elapsed - drift > 0}, with
 * {@code drift = ttl * driftFactor + 2ms} and the elapsed time counted on the monotonic
 * clock from before the first node was asked. The majority is this class's alone: the
 * fleet's {@link QuorumCall quorum calls} need {@link #majority()} agreeing nodes (a
 * second round that raises fencing counters needs what the first left missing of it), a
 * release frees the lock once the nodes known free of its value {@link #reachedAt reach}
 * it, and the fleet can lock while its usable nodes are {@link #reachedBy enough}. The
 * time left is {@link Validity}'s arithmetic ({@code validUntil}), which the lock kinds
 * compare with the clock once the majority agreed.
 *
 * @author redlock contributors
 */
final class Quorum {

	private final int nodes;

	private final int majority;

	Quorum(int nodes) {
		this.nodes = nodes;
		this.majority = nodes / 2 + 1;
	}

	/**
	 * Returns how many nodes make a quorum: {@code N/2+1}.
	 */
	int majority() {
		return this.majority;
	}

	/**
	 * Returns whether {@code count} nodes make a quorum.
	 */
	boolean reachedBy(int count) {
		return count >= this.majority;
	}

	/**
	 * Returns whether a count that rises one by one has just reached the quorum: the one
	 * count at which to act, once.
	 */
	boolean reachedAt(int count) {
		return count == this.majority;
	}

	/**
	 * Returns when enough of {@code nodes} count again to make a quorum, as
	 * {@link System#nanoTime()}: now or earlier when they do already,
	 * {@link Long#MAX_VALUE} when that is not known (nodes down, ruled out or not checked
	 * yet), so that a later time means that only a wait (the restart guard, a clock
	 * settling) stands in the way.
	 */
	long countsFrom(List<QuorumMember> nodes) {
		long[] countsFrom = new long[nodes.size()];
		for (int i = 0; i < countsFrom.length; i++) {
			countsFrom[i] = nodes.get(i).countsFrom();
		}
		Arrays.sort(countsFrom);
		return countsFrom[this.majority - 1];
	}

	@Override
	public String toString() {
		return this.majority + " of " + this.nodes;
	}

}
