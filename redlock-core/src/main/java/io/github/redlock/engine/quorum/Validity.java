package io.github.redlock.engine.quorum;

import java.util.concurrent.TimeUnit;

/**
 * The validity arithmetic of the algorithm. A key set with {@code ttl} at or after
 * {@code start} exists on its node until at least {@code start + ttl}, less the clock
 * drift between processes: {@code drift = ttl * driftFactor + 2ms}. The lock is valid
 * until {@code start + ttl - drift}, which is the spec's
 * {@code validity = ttl - elapsed - drift} counted from the moment the quorum answered.
 * The rule it serves (a majority and time left) is stated with the quorum, in
 * {@link Quorum}.
 * <p>
 * <b>Invariants:</b> a TTL is served exactly when it is longer than its drift
 * ({@link #canBeValid}): a shorter one would be invalid before the first round trip, so
 * it is refused as an argument, and no extension or hold is sent with it. Every call that
 * sets a TTL on the nodes (an acquisition, its fencing round, an extension) waits for
 * each node at most {@link #callTimeoutNanos}: the node timeout, or a third of the TTL
 * when that is shorter, so that the TTL asked for is the TTL the nodes set, however short
 * (the spec's per-node timeout "small compared to the lock auto-release time"), and
 * validity is computed from the elapsed time as for any TTL. A lease is no longer
 * extended towards its maximum hold once less than {@link #holdMarginNanos} of the hold
 * is left and that cut the TTL asked for: an extension that short would spend most of
 * what it sets on its own round trip.
 *
 * @author redlock contributors
 */
public final class Validity {

	static final long MIN_DRIFT_NANOS = 2_000_000L;

	/**
	 * The shortest a call waits for a node, however short its TTL: a node on the same
	 * network answers well within it, and a shorter wait would only fail calls that could
	 * have counted.
	 */
	static final long MIN_CALL_TIMEOUT_NANOS = 1_000_000L;

	private final double driftFactor;

	private final long nodeTimeoutNanos;

	private final long leastTtlMillis;

	private final long holdMarginNanos;

	/**
	 * @param driftFactor the share of the TTL allowed for clock drift, below 1
	 * @param nodeTimeoutNanos the configured node timeout
	 */
	public Validity(double driftFactor, long nodeTimeoutNanos) {
		this.driftFactor = driftFactor;
		this.nodeTimeoutNanos = nodeTimeoutNanos;
		this.holdMarginNanos = 3 * nodeTimeoutNanos;
		// a few ms for any drift factor the settings accept (below 0.5); bounded for one
		// they refuse later
		long least = 1;
		while (least < 1000 && !canBeValid(TimeUnit.MILLISECONDS.toNanos(least))) {
			least++;
		}
		this.leastTtlMillis = least;
	}

	public long driftNanos(long ttlNanos) {
		return (long) (ttlNanos * this.driftFactor) + MIN_DRIFT_NANOS;
	}

	/**
	 * Returns the monotonic time until which a lock set with {@code ttlNanos}, starting
	 * at {@code startNanos}, is valid.
	 */
	public long validUntil(long startNanos, long ttlNanos) {
		return startNanos + ttlNanos - driftNanos(ttlNanos);
	}

	/**
	 * Returns whether a lock set with {@code ttlNanos} can be valid at all: whether the
	 * TTL is longer than its drift. A TTL that is not would be invalid before any node
	 * answered.
	 */
	public boolean canBeValid(long ttlNanos) {
		return ttlNanos > driftNanos(ttlNanos);
	}

	/**
	 * Returns the shortest whole number of milliseconds that {@link #canBeValid can be
	 * valid}, for messages.
	 */
	public long leastTtlMillis() {
		return this.leastTtlMillis;
	}

	/**
	 * Returns how much of its maximum hold a lease must have left to be extended once
	 * more when the hold cuts the TTL asked for: three node timeouts. Below it the lease
	 * runs out as its last extension set it, and is reported as having reached the
	 * maximum hold.
	 */
	public long holdMarginNanos() {
		return this.holdMarginNanos;
	}

	/**
	 * Returns how long a call that sets {@code ttlNanos} on the nodes waits for each
	 * node: the node timeout, or a third of the TTL when that is shorter, and never less
	 * than a millisecond.
	 */
	public long callTimeoutNanos(long ttlNanos) {
		return Math.max(MIN_CALL_TIMEOUT_NANOS, Math.min(this.nodeTimeoutNanos, ttlNanos / 3));
	}

}
