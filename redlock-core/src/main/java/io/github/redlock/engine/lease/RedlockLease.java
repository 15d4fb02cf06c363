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
import io.github.redlock.engine.quorum.QuorumCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A lock held on a quorum: its value and fencing token, and the {@link Lease} its holder
 * and the registry use, made of parts that each own one thing: {@link LeaseState} where
 * the lease stands and the one telling of its end, {@link LeaseExtensions} its validity,
 * its extensions and the end asked for, {@link LeaseNotices} who hears of its end, and
 * {@link LeaseWatchdog} what keeps it extended and notices when its validity runs out.
 * <p>
 * The parts are its superclasses ({@code LeaseNotices} &lt; {@code LeaseState} &lt;
 * {@code LeaseExtensions} &lt; {@code RedlockLease}), not fields: a lease is one object,
 * each of its fields held once, since the bytes of a lock cycle and the heap of each held
 * lease count. Each part keeps its fields to itself but for what a later part uses; this
 * class declares the whole public API itself.
 * <p>
 * <b>Invariant</b> (kept by {@link LeaseState}): a lease's end is told exactly once, by
 * the winner of its state's {@code compareAndSet}, whichever of release, loss, an end
 * asked for or a stop comes first.
 *
 * @author redlock contributors
 */
public final class RedlockLease extends LeaseExtensions implements Lease {

	private static final Log logger = LogFactory.getLog(RedlockLease.class);

	private final String key;

	private final String value;

	private final long token;

	/**
	 * Makes a lease that extends and releases itself as its kind's {@code ops} say.
	 */
	public RedlockLease(EngineContext engine, String key, String value, long token, long startNanos, long validUntil,
			QuorumCall acquisition, LeaseOps ops) {
		super(engine, ops, acquisition, startNanos + engine.settings().maxHold().toNanos(), validUntil);
		this.key = key;
		this.value = value;
		this.token = token;
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
		return isActive() && this.engine.clock().nanoTime() < validUntil();
	}

	public boolean isLost() {
		return wasLost();
	}

	@Override
	public Duration remainingValidity() {
		if (!isActive()) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(Math.max(0, validUntil() - this.engine.clock().nanoTime()));
	}

	@Override
	public boolean extend(Duration ttl) {
		if (!isActive()) {
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
		if (until - holdDeadline() > 0) {
			throw new IllegalArgumentException("Lock '" + LockKeys.printable(this.key) + "' cannot be held for "
					+ Durations.format(duration) + ": that ends past its maximum hold time of "
					+ Durations.format(this.engine.settings().maxHold())
					+ " from the acquisition; hold it for less or raise the maximum hold time (redlock.max-hold)");
		}
		if (!isActive()) {
			return false;
		}
		ExtendOutcome outcome = await(endAt(until));
		if (outcome.extended()) {
			this.watchdog.keepUntilEnd();
		}
		return outcome.extended();
	}

	@Override
	public void releaseAfter(Duration delay) {
		long now = this.engine.clock().nanoTime();
		long delayNanos = (delay != null) ? delay.toNanos() : 0;
		if (delayNanos < 1_000_000 || !isHeld() || !linger()) {
			release();
			return;
		}
		ExtendOutcome outcome = await(endAt(now + Math.min(delayNanos, holdDeadline() - now)));
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
		return await(extendAsync(ttlNanos));
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
		lose(reason);
	}

	/**
	 * Tells {@code holding} how this hold ends; at once if it has ended already.
	 */
	public void observe(LockObserver.Holding holding) {
		observeEnd(holding);
	}

	/**
	 * Returns why the lease is not held, for callers that find it gone.
	 */
	public LockLostException lossCause() {
		return makeLossCause();
	}

	@Override
	public void addListener(LeaseListener listener) {
		if (isActive() && this.engine.clock().nanoTime() - validUntil() >= 0) {
			// its validity ran out and the registry's timer has not looked yet: decide
			// now what the timer would (lost, or ended as asked), so that a listener
			// added to a lease already lost is told at once, as documented
			this.watchdog.checkExpiry();
		}
		listen(listener);
	}

	@Override
	public void release() {
		CompletableFuture<Boolean> release = releaseOnNodes();
		try {
			release.get(this.engine.fleet().callBoundNanos(), TimeUnit.NANOSECONDS);
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
	public CompletableFuture<@Nullable Void> releaseAsync() {
		CompletableFuture<Void> released = new CompletableFuture<>();
		releaseOnNodes().whenCompleteAsync((ignored, ex) -> released.complete(null), this.engine.callbacks());
		return released;
	}

	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return "Lease[key=" + LockKeys.printable(this.key) + ", token=" + this.token + ", " + describe() + "]";
	}

	/**
	 * The outcome of one extension.
	 *
	 * @param extended whether it reached a quorum in time
	 * @param agreed how many nodes agreed
	 * @param failure why not, or {@code null}
	 * @param timedOut whether a node timed out among the replies that decided it: the
	 * signal that the watchdog's {@link RenewalWindow} sends too many at once
	 */
	public record ExtendOutcome(boolean extended, int agreed, @Nullable String failure, boolean timedOut) {

		/**
		 * An outcome decided without any node timing out.
		 */
		public ExtendOutcome(boolean extended, int agreed, @Nullable String failure) {
			this(extended, agreed, failure, false);
		}

	}

}
