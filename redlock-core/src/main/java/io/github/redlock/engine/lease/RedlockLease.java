package io.github.redlock.engine.lease;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.Durations;
import io.github.redlock.Lease;
import io.github.redlock.LeaseListener;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.quorum.NodeFleet;
import io.github.redlock.engine.quorum.QuorumCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A lock held on a quorum: its value and fencing token, and the {@link Lease} its holder
 * and the registry use, made of parts that each own one thing: {@link LeaseState} where
 * the lease stands and the one telling of its end, {@link LeaseExtensions} its validity,
 * its extensions and the end asked for, {@link LeaseNotices} who hears of its end, and
 * {@link LeaseWatchdog} what keeps it extended and notices when its validity runs out.
 * <p>
 * <b>Invariant</b> (kept by {@link LeaseState}): a lease's end is told exactly once, by
 * the winner of its state's {@code compareAndSet}, whichever of release, loss, an end
 * asked for or a stop comes first.
 *
 * @author redlock contributors
 */
public final class RedlockLease implements Lease {

	private static final Log logger = LogFactory.getLog(RedlockLease.class);

	private final EngineContext engine;

	private final NodeFleet fleet;

	private final String key;

	private final String value;

	private final long token;

	private final long holdDeadline;

	private final LeaseWatchdog watchdog;

	private final LeaseState state;

	private final LeaseExtensions extensions;

	/**
	 * Makes a lease that extends and releases itself as its kind's {@code ops} say.
	 */
	public RedlockLease(EngineContext engine, String key, String value, long token, long startNanos, long validUntil,
			QuorumCall acquisition, LeaseOps ops) {
		this.engine = engine;
		this.fleet = engine.fleet();
		this.key = key;
		this.value = value;
		this.token = token;
		this.holdDeadline = startNanos + engine.settings().maxHold().toNanos();
		String secret = LockValues.secret(value);
		LeaseNotices notices = new LeaseNotices(engine, this);
		this.watchdog = new LeaseWatchdog(engine, this);
		this.state = new LeaseState(engine, this, ops, this.watchdog, notices, secret, acquisition);
		this.extensions = new LeaseExtensions(engine, this, ops, this.state, this.watchdog, secret, this.holdDeadline,
				validUntil);
		this.watchdog.watchExpiry();
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public long fencingToken() {
		return this.token;
	}

	public String value() {
		return this.value;
	}

	@Override
	public boolean isHeld() {
		return this.state.isActive() && this.engine.clock().nanoTime() < this.extensions.validUntil();
	}

	public boolean isLost() {
		return this.state.isLost();
	}

	/**
	 * Returns whether the watchdog still has work: the lease is held, or released but
	 * left on the nodes until its end.
	 */
	boolean isWatched() {
		return this.state.isWatched();
	}

	boolean isLingering() {
		return this.state.isLingering();
	}

	/**
	 * Returns whether an end was asked for.
	 */
	boolean hasEnd() {
		return this.extensions.hasEnd();
	}

	/**
	 * Returns whether the lock was set to expire at its end on a quorum: the watchdog
	 * need not extend it again.
	 */
	boolean endApplied() {
		return this.extensions.endApplied();
	}

	/**
	 * Returns the monotonic time until which the lease is valid.
	 */
	long validUntil() {
		return this.extensions.validUntil();
	}

	/**
	 * Returns the monotonic time past which no extension may keep the lease.
	 */
	long holdDeadline() {
		return this.holdDeadline;
	}

	@Override
	public Duration remainingValidity() {
		if (!this.state.isActive()) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(Math.max(0, this.extensions.validUntil() - this.engine.clock().nanoTime()));
	}

	@Override
	public boolean extend(Duration ttl) {
		if (!this.state.isActive()) {
			this.engine.checkTtl(ttl);
			return false;
		}
		return extendNow(ttl).extended();
	}

	@Override
	public boolean holdFor(Duration duration) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException("duration must be positive, was " + Durations.format(duration));
		}
		long now = this.engine.clock().nanoTime();
		long until = now + duration.toNanos();
		if (until - this.holdDeadline > 0) {
			throw new IllegalArgumentException("Lock '" + LockKeys.printable(this.key) + "' cannot be held for "
					+ Durations.format(duration) + ": that ends past its maximum hold time of "
					+ Durations.format(this.engine.settings().maxHold())
					+ " from the acquisition; hold it for less or raise the maximum hold time (redlock.max-hold)");
		}
		if (!this.state.isActive()) {
			return false;
		}
		ExtendOutcome outcome = this.extensions.await(this.extensions.endAt(until));
		if (outcome.extended()) {
			this.watchdog.keepUntilEnd();
		}
		return outcome.extended();
	}

	@Override
	public void releaseAfter(Duration delay) {
		long now = this.engine.clock().nanoTime();
		long delayNanos = (delay != null) ? delay.toNanos() : 0;
		if (delayNanos < 1_000_000 || !isHeld() || !this.state.linger()) {
			release();
			return;
		}
		ExtendOutcome outcome = this.extensions
			.await(this.extensions.endAt(now + Math.min(delayNanos, this.holdDeadline - now)));
		if (outcome.extended()) {
			this.watchdog.keepUntilEnd();
		}
		else if (isLingering() && logger.isDebugEnabled()) {
			// not deleted at an end that had come already, nor lost
			logger.debug("Lock '" + LockKeys.printable(this.key) + "' could not be set to expire in "
					+ Durations.format(delay) + "; it expires as its last extension set it: " + outcome.failure());
		}
	}

	/**
	 * Extends the lease on every node, waiting at most one call bound.
	 */
	public ExtendOutcome extendNow(Duration ttl) {
		long ttlNanos = this.engine.checkTtl(ttl).toNanos();
		return this.extensions.await(this.extensions.extendAsync(ttlNanos));
	}

	/**
	 * Extends the lease on every node; decided as soon as a quorum agreed or cannot
	 * ({@link LeaseExtensions#extendAsync}).
	 */
	CompletableFuture<ExtendOutcome> extendAsync(long requestedTtlNanos) {
		return this.extensions.extendAsync(requestedTtlNanos);
	}

	/**
	 * Keeps the lease extended to {@code ttl} every third of it until the returned handle
	 * withdraws the demand, or the lease is released, lost, or reaches the maximum hold
	 * time.
	 * @return withdraws the demand
	 */
	public Runnable autoExtend(Duration ttl) {
		return this.watchdog.autoExtend(ttl);
	}

	/**
	 * Returns whether work runs under the lease, as far as the registry can tell: it is
	 * auto-extended, or held until an end.
	 */
	boolean isKeptAlive() {
		return this.watchdog.isKeptAlive();
	}

	/**
	 * Declares the lease lost, unless it ended already; a lease released with a minimum
	 * hold only has that hold cut short.
	 */
	public void markLost(String reason) {
		this.state.markLost(reason);
	}

	/**
	 * Ends the lease at the end asked for: quietly, since its holder asked for it.
	 */
	void endAsAsked() {
		this.state.endAsAsked();
	}

	/**
	 * Tells {@code holding} how this hold ends; at once if it has ended already.
	 */
	public void observe(LockObserver.Holding holding) {
		this.state.observe(holding);
	}

	/**
	 * Returns why the lease is not held, for callers that find it gone.
	 */
	public LockLostException lossCause() {
		return this.state.lossCause();
	}

	@Override
	public void addListener(LeaseListener listener) {
		if (this.state.isActive() && this.engine.clock().nanoTime() - this.extensions.validUntil() >= 0) {
			// its validity ran out and the registry's timer has not looked yet: decide
			// now what the timer would (lost, or ended as asked), so that a listener
			// added to a lease already lost is told at once, as documented
			this.watchdog.checkExpiry();
		}
		this.state.listen(listener);
	}

	@Override
	public void release() {
		CompletableFuture<Boolean> release = this.state.release();
		try {
			release.get(this.fleet.callBoundNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			// the release is on its way; keys expire in any case
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Release of lock '" + LockKeys.printable(this.key) + "' did not complete on a quorum", ex);
		}
	}

	/**
	 * Deletes the lock on every node where it still holds this lease's value, without
	 * blocking.
	 * @return a future that completes, off Lettuce's I/O threads, once every node
	 * answered or timed out
	 */
	@Override
	public CompletableFuture<Void> releaseAsync() {
		CompletableFuture<Void> released = new CompletableFuture<>();
		this.state.release().whenCompleteAsync((ignored, ex) -> released.complete(null), this.engine.callbacks());
		return released;
	}

	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return "Lease[key=" + LockKeys.printable(this.key) + ", token=" + this.token + ", " + this.state.describe()
				+ "]";
	}

	/**
	 * The outcome of one extension.
	 *
	 * @param extended whether it reached a quorum in time
	 * @param agreed how many nodes agreed
	 * @param failure why not, or {@code null}
	 */
	public record ExtendOutcome(boolean extended, int agreed, String failure) {
	}

}
