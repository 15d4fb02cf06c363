package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Watches one lease on the registry's shared scheduler thread: declares it lost when its
 * validity runs out, and, once {@linkplain #autoExtend asked to}, extends it every third
 * of its TTL, retrying a failed extension while more than a quarter of the TTL is left.
 *
 * @author redlock contributors
 */
final class LeaseWatchdog {

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	private final EngineContext engine;

	private final RedlockLease lease;

	private volatile long autoExtendTtlNanos;

	private volatile ScheduledFuture<?> renewal;

	private volatile ScheduledFuture<?> expiryCheck;

	LeaseWatchdog(EngineContext engine, RedlockLease lease) {
		this.engine = engine;
		this.lease = lease;
	}

	/**
	 * Keeps the lease extended to {@code ttl} every third of it until released, lost, or
	 * the maximum hold time is reached.
	 */
	void autoExtend(Duration ttl) {
		long ttlNanos = ttl.toNanos();
		boolean first = this.autoExtendTtlNanos == 0;
		this.autoExtendTtlNanos = Math.max(this.autoExtendTtlNanos, ttlNanos);
		if (first) {
			scheduleRenewal(Math.min(this.autoExtendTtlNanos / 3,
					Math.max(0, (this.lease.validUntil() - this.engine.clock().nanoTime()) / 3)));
		}
	}

	private void scheduleRenewal(long delayNanos) {
		if (!this.lease.isActive()) {
			return;
		}
		try {
			this.renewal = this.engine.scheduler().schedule(this::renew, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the registry is closing and releases every lease
		}
	}

	private void renew() {
		if (!this.lease.isActive()) {
			return;
		}
		long ttlNanos = this.autoExtendTtlNanos;
		this.lease.extendAsync(ttlNanos).whenComplete((outcome, ex) -> {
			if (!this.lease.isActive()) {
				return;
			}
			if (ex == null && outcome.extended()) {
				scheduleRenewal(ttlNanos / 3);
				return;
			}
			long now = this.engine.clock().nanoTime();
			if (this.lease.holdDeadline() - now < this.engine.minimumTtlNanos()) {
				return; // the expiry check reports it when the last extension runs out
			}
			long remaining = this.lease.validUntil() - now;
			String why = (ex != null) ? ex.toString() : outcome.failure();
			if (remaining > ttlNanos / 4) {
				logger.debug("Could not extend lock '" + this.lease.key() + "', retrying: " + why);
				scheduleRenewal(remaining / 3);
			}
			else {
				this.lease.markLost(
						"the watchdog could not extend it on a quorum of nodes before its validity ran out: " + why);
			}
		});
	}

	/**
	 * Checks just after the lease's validity ends whether it is still held.
	 */
	void scheduleExpiryCheck() {
		long delay = this.lease.validUntil() - this.engine.clock().nanoTime();
		try {
			this.expiryCheck = this.engine.scheduler()
				.schedule(this::checkExpiry, Math.max(0, delay) + 1_000_000, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the registry is closing and releases every lease
		}
	}

	/**
	 * Declares the lease lost if its validity has run out, saying why; else checks again
	 * when it runs out.
	 */
	void checkExpiry() {
		if (!this.lease.isActive()) {
			return;
		}
		long now = this.engine.clock().nanoTime();
		if (now < this.lease.validUntil()) {
			scheduleExpiryCheck();
			return;
		}
		if (this.lease.holdDeadline() - now < this.engine.minimumTtlNanos()) {
			this.lease.markLost("it reached the maximum hold time of " + this.engine.settings().maxHold()
					+ " (redlock max-hold) and was not extended further");
		}
		else if (this.autoExtendTtlNanos > 0) {
			this.lease.markLost("its validity ran out before the watchdog could extend it");
		}
		else {
			this.lease.markLost("its validity ran out before it was released or extended");
		}
	}

	/**
	 * Stops watching: the lease was released or lost.
	 */
	void cancel() {
		ScheduledFuture<?> task = this.renewal;
		if (task != null) {
			task.cancel(false);
		}
		task = this.expiryCheck;
		if (task != null) {
			task.cancel(false);
		}
	}

}
