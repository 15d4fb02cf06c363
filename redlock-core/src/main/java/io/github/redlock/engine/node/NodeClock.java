package io.github.redlock.engine.node;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.redlock.NodeFailure;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One node's clock as this client measures it: its offset from the client's monotonic
 * clock, taken from a {@code TIME} whose round trip bounds the error (half of it), once a
 * second ({@link NodeClient}). A node keeps lock keys by its own wall clock, so a clock
 * that jumps forward expires every lock on it early, and one far off the others' breaks
 * the floor's argument ({@link RestartDecision}: no clock off true time by more than half
 * of {@code maxTtl}). Such a node counts toward no quorum, as a restarted node does,
 * until it has been steady for the guard time:
 * <ul>
 * <li>a <b>jump</b>: two measurements whose offsets differ by more than the drift the
 * validity allows over the time between them ({@code driftFactor}, as {@code Validity}
 * takes off every lease), plus both errors and a millisecond;</li>
 * <li>a <b>skew</b>: an offset off the median of the fleet's ({@link FleetClocks}) by
 * more than half of the guard time.</li>
 * </ul>
 * What it cannot see: a jump and its undoing between two measurements, a clock that runs
 * fast within the drift allowed, and the fleet's clocks all wrong together.
 * <p>
 * <b>Invariants.</b> This class alone decides whether a node's clock keeps it out. The
 * time it is kept out until only moves later, and each fault is logged once, when it
 * begins; the end is logged once too. Measurements taken further apart than the offsets
 * can be compared (a reconnect, a pause) still compare: a jump is a jump whenever it
 * came.
 *
 * @author redlock contributors
 */
final class NodeClock {

	private static final Log logger = LogFactory.getLog(NodeClock.class);

	/** What a measurement may be off by besides its round trip and the drift. */
	private static final long SLACK_MICROS = 1000;

	private final String node;

	private final FleetClocks fleet;

	private final double driftFactor;

	private final long guardNanos;

	private final Runnable changed;

	/** The offset of the node's clock from the client's monotonic one, in µs. */
	private volatile long offsetMicros;

	private volatile long errorMicros;

	/** When the last measurement was taken; 0 before the first. */
	private volatile long measuredAtNanos;

	private volatile long outUntilNanos;

	/** Why the node is out, while it is; cleared, and the end logged, once. */
	private final AtomicReference<String> fault = new AtomicReference<>();

	private final ClientResources resources;

	/** How often the node's clock is read while connected. */
	static final long READING_INTERVAL_MILLIS = 1000;

	private volatile @Nullable ScheduledFuture<?> readings;

	/**
	 * Creates the clock of one node, among the fleet's.
	 * @param guardNanos how long a node whose clock jumped sits out (the restart guard's
	 * time); 0 to read the clock without ever keeping the node out
	 */
	NodeClock(String node, FleetClocks fleet, long guardNanos, ClientResources resources, Runnable changed) {
		this.node = node;
		this.fleet = fleet;
		this.driftFactor = fleet.driftFactor();
		this.guardNanos = guardNanos;
		this.resources = resources;
		this.changed = changed;
		fleet.add(this);
	}

	/**
	 * Takes one measurement: a {@code TIME} sent at {@code sentNanos} was answered at
	 * {@code receivedNanos} (the client's monotonic clock) with the node's clock in µs.
	 */
	void measured(long sentNanos, long receivedNanos, long nodeMicros) {
		long midMicros = TimeUnit.NANOSECONDS.toMicros(sentNanos + (receivedNanos - sentNanos) / 2);
		long offset = nodeMicros - midMicros;
		long error = TimeUnit.NANOSECONDS.toMicros(receivedNanos - sentNanos) / 2;
		long previousAt = this.measuredAtNanos;
		if (this.guardNanos == 0) {
			// read for the time the nodes agree on (FleetClocks#nowMicros), not judged:
			// with the restart guard off, nothing keeps a node out for a time
			this.offsetMicros = offset;
			this.errorMicros = error;
			this.measuredAtNanos = receivedNanos;
			this.fleet.measured();
			return;
		}
		if (previousAt != 0) {
			long elapsedMicros = TimeUnit.NANOSECONDS.toMicros(receivedNanos - previousAt);
			long allowed = (long) (elapsedMicros * this.driftFactor) + error + this.errorMicros + SLACK_MICROS;
			long moved = offset - this.offsetMicros;
			if (Math.abs(moved) > allowed) {
				out(receivedNanos, "its clock jumped " + signed(moved) + " between two readings "
						+ TimeUnit.MICROSECONDS.toMillis(elapsedMicros) + "ms apart");
			}
		}
		this.offsetMicros = offset;
		this.errorMicros = error;
		this.measuredAtNanos = receivedNanos;
		this.fleet.measured();
		long median = this.fleet.medianOffsetMicros();
		long bound = TimeUnit.NANOSECONDS.toMicros(this.guardNanos) / 2;
		if (median != Long.MIN_VALUE && Math.abs(offset - median) > bound + error) {
			out(receivedNanos, "its clock is " + signed(offset - median)
					+ " off the median of the nodes' clocks, more than half of the maximum TTL");
		}
	}

	private static String signed(long micros) {
		return ((micros >= 0) ? "+" : "-") + String.format("%.3fs", Math.abs(micros) / 1e6);
	}

	private void out(long now, String why) {
		long until = now + this.guardNanos;
		this.outUntilNanos = until;
		if (this.fault.getAndSet(why) == null) {
			logger.warn("Redlock node " + this.node + ": " + why + "; it counts toward no quorum until its clock has"
					+ " been steady for " + TimeUnit.NANOSECONDS.toSeconds(this.guardNanos + 999_999_999) + "s");
			this.changed.run();
		}
		this.resources.eventExecutorGroup().schedule(() -> {
			if (this.outUntilNanos == until) {
				failure();
				this.changed.run();
			}
		}, this.guardNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Returns why the node's clock keeps it out of quorums now, or {@code null}.
	 */
	@Nullable NodeFailure failure() {
		if (this.guardNanos == 0) {
			return null;
		}
		long left = this.outUntilNanos - System.nanoTime();
		if (left <= 0) {
			if (this.fault.get() != null && this.fault.getAndSet(null) != null) {
				logger.info("Redlock node " + this.node + ": its clock has been steady for the maximum TTL; it counts"
						+ " toward quorums again");
			}
			return null;
		}
		String why = this.fault.get();
		return new NodeFailure(this.node, NodeFailure.Kind.CLOCK, ((why != null) ? why : "its clock jumped")
				+ "; counts again in " + TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999) + "s");
	}

	/**
	 * Returns whether the clock keeps the node out now, reading only what the last
	 * measurements left: no node is asked.
	 */
	boolean keepsOut() {
		return this.guardNanos != 0 && this.fault.get() != null && this.outUntilNanos - System.nanoTime() > 0;
	}

	/**
	 * Returns until when the clock keeps the node out, as {@link System#nanoTime()}: in
	 * the past when it does not.
	 */
	long outUntilNanos() {
		return this.outUntilNanos;
	}

	/**
	 * Returns the last offset measured from the client's monotonic clock in µs, and
	 * whether there is one.
	 */
	boolean measured() {
		return this.measuredAtNanos != 0;
	}

	long offsetMicros() {
		return this.offsetMicros;
	}

	/**
	 * Reads the node's clock once a second on its connection, when it has one, until
	 * {@link #close()}: one {@code TIME}, which the least-privilege ACL user may run.
	 */
	synchronized void start(Supplier<StatefulRedisConnection<String, String>> connection) {
		if (this.readings != null) {
			return;
		}
		this.readings = this.resources.eventExecutorGroup()
			.scheduleWithFixedDelay(() -> read(connection.get()), READING_INTERVAL_MILLIS, READING_INTERVAL_MILLIS,
					TimeUnit.MILLISECONDS);
	}

	/**
	 * Reads the node's clock once on {@code connection}, if it is open: at once after a
	 * check, so that a registry has a reading of every node it counts by the time it
	 * starts, and then once a second.
	 */
	void read(StatefulRedisConnection<String, String> connection) {
		if (connection == null || !connection.isOpen()) {
			return;
		}
		long sent = System.nanoTime();
		connection.async().time().whenComplete((time, ex) -> {
			if (time != null && time.size() == 2) {
				measured(sent, System.nanoTime(),
						Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1)));
			}
		});
	}

	synchronized void close() {
		ScheduledFuture<?> current = this.readings;
		this.readings = null;
		if (current != null) {
			current.cancel(false);
		}
		this.fleet.remove(this);
	}

}
