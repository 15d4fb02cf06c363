package io.github.redlock.engine.quorum;

/**
 * The validity arithmetic of the algorithm. A key set with {@code ttl} at or after
 * {@code start} exists on its node until at least {@code start + ttl}, less the clock
 * drift between processes: {@code drift = ttl * driftFactor + 2ms}. The lock is valid
 * until {@code start + ttl - drift}, which is the spec's
 * {@code validity = ttl - elapsed - drift} counted from the moment the quorum answered.
 * The rule it serves (a majority and time left) is stated with the quorum, in
 * {@link Quorum}.
 *
 * @author redlock contributors
 */
public final class Validity {

	static final long MIN_DRIFT_NANOS = 2_000_000L;

	private final double driftFactor;

	public Validity(double driftFactor) {
		this.driftFactor = driftFactor;
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

}
