package io.github.redlock.engine.lease;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redlock.LockKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Watches one lease on the registry's shared scheduler thread: declares it lost when its
 * validity runs out, and, once {@linkplain #autoExtend asked to}, extends it every third
 * of its TTL, retrying a failed extension while more than a quarter of the TTL is left. A
 * renewal goes to the nodes through the registry's {@link RenewalWindow}, which keeps the
 * renewals of many leases due together from swamping the nodes' connections. A lease
 * given an end ({@link RedlockLease#holdFor}, {@link RedlockLease#releaseAfter}) is
 * extended {@linkplain #keepUntilEnd a maximum TTL at a time} until an extension sets it
 * to expire at that end, and then ends quietly when its validity runs out.
 * <p>
 * One per lease, made by it: it reads the registry's {@link EngineContext} through the
 * lease rather than holding it again, since the heap of each held lease counts.
 *
 * @author redlock contributors
 */
final class LeaseWatchdog {

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	private static final VarHandle RENEWING;

	static {
		try {
			RENEWING = MethodHandles.lookup().findVarHandle(LeaseWatchdog.class, "renewing", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final RedlockLease lease;

	/**
	 * One entry per hold that wants the lease kept extended, the TTL it asked for; made
	 * on the first demand, guarded by this watchdog.
	 */
	private @Nullable List<long[]> demands;

	private volatile long autoExtendTtlNanos;

	/**
	 * Whether a renewal is scheduled or running: never more than one chain. Set by
	 * {@link #RENEWING}.
	 */
	private volatile boolean renewing;

	/**
	 * When the next renewal is due, on the registry's clock, or {@link #NO_RENEWAL}: the
	 * registry's one timer ({@link ExpiryChecks}) runs it, as it runs the expiry check.
	 */
	private volatile long renewalAt = NO_RENEWAL;

	private static final long NO_RENEWAL = Long.MIN_VALUE;

	LeaseWatchdog(RedlockLease lease) {
		this.lease = lease;
	}

	private EngineContext engine() {
		return this.lease.engine;
	}

	/**
	 * Keeps the lease extended, a maximum TTL at a time, until the end it was given, at
	 * which the last extension makes it expire; does nothing more if that extension was
	 * the one already sent.
	 */
	void keepUntilEnd() {
		if (!this.lease.endApplied() && RENEWING.compareAndSet(this, false, true)) {
			scheduleRenewal(Math.max(0, (this.lease.validUntil() - engine().clock().nanoTime()) / 3));
		}
	}

	/**
	 * Returns the TTL of the next renewal, or zero if none is needed: a maximum TTL
	 * (capped at the end) while an end is set and not yet applied, else the longest TTL a
	 * hold asked for.
	 */
	private long renewalTtl() {
		if (this.lease.hasEnd()) {
			return this.lease.endApplied() ? 0 : engine().settings().maxTtl().toNanos();
		}
		return this.autoExtendTtlNanos;
	}

	/**
	 * Keeps the lease extended every third of the longest TTL asked for, until every such
	 * demand is withdrawn, or the lease is released, lost, or reaches the maximum hold
	 * time.
	 * @return withdraws this demand; the watchdog stops extending when none is left
	 */
	// the demands are made by the first demand and kept: see the lambda
	@SuppressWarnings("NullAway")
	Runnable autoExtend(Duration ttl) {
		long[] demand = { ttl.toNanos() };
		synchronized (this) {
			if (this.demands == null) {
				this.demands = new ArrayList<>(2);
			}
			this.demands.add(demand);
			this.autoExtendTtlNanos = longestDemand();
		}
		if (RENEWING.compareAndSet(this, false, true)) {
			scheduleRenewal(Math.min(this.autoExtendTtlNanos / 3,
					Math.max(0, (this.lease.validUntil() - engine().clock().nanoTime()) / 3)));
		}
		return () -> {
			synchronized (this) {
				if (this.demands.remove(demand)) {
					this.autoExtendTtlNanos = longestDemand();
				}
			}
		};
	}

	@SuppressWarnings("NullAway") // called once a demand was added
	private long longestDemand() {
		long longest = 0;
		for (long[] demand : this.demands) {
			longest = Math.max(longest, demand[0]);
		}
		return longest;
	}

	private void scheduleRenewal(long delayNanos) {
		if (!this.lease.isWatched()) {
			return;
		}
		long at = engine().clock().nanoTime() + delayNanos;
		this.renewalAt = at;
		engine().expiryChecks().checkBy(this, at);
	}

	/**
	 * Returns when this watchdog next has something to do, on the registry's clock: a
	 * renewal, or the expiry check just after the lease's validity ends.
	 */
	long nextDue() {
		long expiry = expiryDue();
		long renewal = this.renewalAt;
		return (renewal != NO_RENEWAL && renewal - expiry < 0) ? renewal : expiry;
	}

	/**
	 * Runs what is due at {@code now}, on the registry's timer: the renewal, then the
	 * expiry check.
	 */
	void runDue(long now) {
		long renewal = this.renewalAt;
		if (renewal != NO_RENEWAL && renewal - now <= 0) {
			this.renewalAt = NO_RENEWAL;
			renew();
		}
		if (expiryDue() - now <= 0) {
			checkExpiry();
		}
	}

	private void renew() {
		if (!this.lease.isWatched()) {
			return;
		}
		long demanded = renewalTtl();
		if (demanded == 0) {
			// no hold wants it extended any more, or it expires at its end as set: it
			// runs out as it stands, unless a demand arrived meanwhile, whose
			// autoExtend saw this chain still running
			this.renewing = false;
			demanded = renewalTtl();
			if (demanded == 0 || !RENEWING.compareAndSet(this, false, true)) {
				return;
			}
		}
		long ttlNanos = demanded;
		engine().renewals().renew(this.lease, ttlNanos).whenComplete((outcome, ex) -> {
			if (!this.lease.isWatched()) {
				return;
			}
			if (ex == null && outcome.extended()) {
				scheduleRenewal(ttlNanos / 3);
				return;
			}
			if (this.lease.endApplied()) {
				return; // expires at its end as set; the expiry check ends it then
			}
			long now = engine().clock().nanoTime();
			if (this.lease.holdDeadline() - now < engine().validity().holdMarginNanos()) {
				return; // the expiry check reports it when the last extension runs out
			}
			long remaining = this.lease.validUntil() - now;
			String why = (ex != null) ? ex.toString() : outcome.failure();
			if (remaining > ttlNanos / 4) {
				logger.debug("Could not extend lock '" + LockKeys.printable(this.lease.key()) + "', retrying: " + why);
				scheduleRenewal(remaining / 3);
			}
			else {
				this.lease.markLost(
						"the watchdog could not extend it on a quorum of nodes before its validity ran out: " + why);
			}
		});
	}

	/**
	 * Checks just after the lease's validity ends whether it is still held, and runs the
	 * renewals, on the registry's one timer.
	 */
	void watchExpiry() {
		engine().expiryChecks().watch(this);
	}

	/**
	 * Returns when the expiry check is due, on the registry's clock: just after the
	 * lease's validity ends.
	 */
	long expiryDue() {
		return this.lease.validUntil() + 1_000_000;
	}

	/**
	 * Makes the expiry check run when the lease's validity, just lowered (an end was
	 * set), runs out, rather than when the longer validity would have: the end of a lease
	 * wakes the key's waiters in this registry, who would otherwise wait up to a maximum
	 * TTL longer.
	 */
	void checkExpirySooner() {
		engine().expiryChecks().checkBy(this, expiryDue());
	}

	/**
	 * Declares the lease lost if its validity has run out, saying why; else checks again
	 * when it runs out.
	 */
	void checkExpiry() {
		if (!this.lease.isWatched()) {
			engine().expiryChecks().forget(this);
			return;
		}
		long now = engine().clock().nanoTime();
		if (now < this.lease.validUntil()) {
			checkExpirySooner(); // extended meanwhile: the timer checks again then
			return;
		}
		if (this.lease.endApplied()) {
			this.lease.endAsAsked();
			return;
		}
		if (this.lease.isLingering()) {
			this.lease.markLost("its validity ran out before it could be extended to that end");
			return;
		}
		if (this.lease.holdDeadline() - now < engine().validity().holdMarginNanos()) {
			this.lease.markLost("it reached the maximum hold time of " + engine().settings().maxHold()
					+ " (redlock.max-hold) and was not extended further");
		}
		else if (this.autoExtendTtlNanos > 0) {
			this.lease.markLost("its validity ran out before the watchdog could extend it");
		}
		else {
			this.lease.markLost("its validity ran out before it was released or extended");
		}
	}

	/**
	 * Returns whether somebody asked for the lease to be kept: work runs under it (an
	 * auto-extension demand) or it was given an end.
	 */
	boolean isKeptAlive() {
		return this.autoExtendTtlNanos > 0 || this.lease.hasEnd();
	}

	/**
	 * Stops watching: the lease was released or lost.
	 */
	void cancel() {
		this.renewalAt = NO_RENEWAL;
		engine().expiryChecks().forget(this);
	}

}
