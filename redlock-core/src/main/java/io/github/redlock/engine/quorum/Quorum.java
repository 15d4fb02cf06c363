package io.github.redlock.engine.quorum;

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

	@Override
	public String toString() {
		return this.majority + " of " + this.nodes;
	}

}
