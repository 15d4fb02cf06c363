package io.github.redlock.engine.node;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The clocks of a registry's nodes ({@link NodeClock}), every master of every member, for
 * the median their offsets are judged against: one node whose clock is far off is told
 * from the rest, whichever it is, as long as most are right.
 * <p>
 * <b>Invariants.</b> The median is of the nodes measured so far; with fewer than three,
 * there is none (two clocks cannot say which is wrong). The time the clocks agree on
 * ({@link #nowMicros}) is the median of the offsets as they stood at the last measurement
 * or removal, kept so that reading it costs every acquisition no sort.
 *
 * @author redlock contributors
 */
public final class FleetClocks {

	private final Set<NodeClock> clocks = ConcurrentHashMap.newKeySet();

	private final double driftFactor;

	/**
	 * The offset from this client's monotonic clock, in µs, of the time the measured
	 * nodes' clocks agree on; valid while {@link #agreed}.
	 */
	private volatile long agreedOffsetMicros;

	private volatile boolean agreed;

	/**
	 * Creates the clocks of a fleet.
	 * @param driftFactor the share of a TTL the validity allows for clock drift, which a
	 * node's clock may drift by between two readings
	 */
	public FleetClocks(double driftFactor) {
		this.driftFactor = driftFactor;
	}

	double driftFactor() {
		return this.driftFactor;
	}

	void add(NodeClock clock) {
		this.clocks.add(clock);
	}

	void remove(NodeClock clock) {
		this.clocks.remove(clock);
		measured();
	}

	/**
	 * Told whenever a node's clock was measured: keeps the median of the offsets for
	 * {@link #nowMicros}.
	 */
	synchronized void measured() {
		long[] offsets = this.clocks.stream().filter(NodeClock::measured).mapToLong(NodeClock::offsetMicros).toArray();
		if (offsets.length == 0) {
			this.agreed = false;
			return;
		}
		Arrays.sort(offsets);
		this.agreedOffsetMicros = offsets[offsets.length / 2];
		this.agreed = true;
	}

	/**
	 * Returns the median of the offsets measured, in µs, or {@link Long#MIN_VALUE} with
	 * fewer than three.
	 */
	long medianOffsetMicros() {
		long[] offsets = this.clocks.stream().filter(NodeClock::measured).mapToLong(NodeClock::offsetMicros).toArray();
		if (offsets.length < 3) {
			return Long.MIN_VALUE;
		}
		Arrays.sort(offsets);
		return offsets[offsets.length / 2];
	}

	/**
	 * Returns the time the nodes' clocks agree on now, in ms: the median of what each
	 * measured node's clock reads now, as this client reckons it; {@code fallback} before
	 * any was measured.
	 */
	public long nowMillis(long fallback) {
		return this.agreed ? TimeUnit.MICROSECONDS.toMillis(nowMicros()) : fallback;
	}

	/**
	 * Returns the time the nodes' clocks agree on now, in µs, as {@link #nowMillis}; the
	 * fallback, in µs, before any node's clock was measured.
	 */
	public long nowMicros(long fallbackMicros) {
		return this.agreed ? nowMicros() : fallbackMicros;
	}

	private long nowMicros() {
		return TimeUnit.NANOSECONDS.toMicros(System.nanoTime()) + this.agreedOffsetMicros;
	}

}
