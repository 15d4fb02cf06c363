package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.redlock.Lease;
import io.github.redlock.LockKeys;
import io.github.redlock.engine.LockObserver;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.lease.ReentrantLease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs acquisitions of every kind and tells the registry's {@link LockObserver}, if it
 * has one, what the observer's contract promises: each acquisition's start on the
 * caller's thread (with a scope around a blocking one), then its one end, the grant or
 * the failure, then the new lease's hold until it is released or lost.
 * <p>
 * <b>Invariants.</b> An acquisition is told to the observer only once it has started: the
 * caller's arguments and the registry's state are checked before, by the kind. Each
 * started acquisition is told of exactly one end. An observer that throws is logged,
 * never let through to a caller who holds the lock. Without an observer each acquisition
 * costs one null check here.
 *
 * @author redlock contributors
 */
public final class Observing {

	private static final Log logger = LogFactory.getLog(Observing.class);

	private final @Nullable LockObserver observer;

	private final Executor callbacks;

	/**
	 * Creates the observing of one registry.
	 * @param observer the registry's observer, or {@code null} for none
	 * @param callbacks where asynchronous acquisitions complete their callers' futures:
	 * off the I/O threads, so that the callers' continuations cannot stall the replies of
	 * every node
	 */
	public Observing(@Nullable LockObserver observer, Executor callbacks) {
		this.observer = observer;
		this.callbacks = callbacks;
	}

	/**
	 * Returns whether the registry has an observer to tell.
	 */
	boolean isOn() {
		return this.observer != null;
	}

	/**
	 * Runs a blocking acquisition of any kind, telling the observer if there is one:
	 * started and scoped on the caller's thread, ended there too.
	 * @param reentrant whether the acquisition joins the thread's hold of the key rather
	 * than making a lease
	 * @param undo run if the observer fails to start, before its exception is rethrown:
	 * what the caller prepared for the acquisition (a reentered hold) is undone
	 * @param acquisition the acquisition
	 * @return the lease
	 * @throws InterruptedException if the acquisition was interrupted
	 */
	public Lease blocking(String key, Duration ttl, Duration waitTime, LockObserver.Kind kind, boolean reentrant,
			Runnable undo, Acquire acquisition) throws InterruptedException {
		LockObserver observer = this.observer;
		if (observer == null) {
			return acquisition.acquire();
		}
		LockObserver.Acquiring acquiring;
		LockObserver.Scope scope;
		try {
			acquiring = observer.acquisitionStarted(key, ttl, waitTime, LockObserver.Mode.BLOCKING, reentrant, kind);
			scope = acquiring.openScope();
		}
		catch (RuntimeException | Error ex) {
			undo.run();
			throw ex;
		}
		Lease lease;
		try {
			lease = acquisition.acquire();
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			scope.close();
			acquiring.failed(ex);
			throw ex;
		}
		try {
			scope.close();
		}
		catch (RuntimeException ex) {
			logger.warn("LockObserver failed for lock '" + LockKeys.printable(key) + "'", ex);
		}
		RedlockLease newLease = null;
		if (!reentrant) {
			newLease = (lease instanceof ReentrantLease held) ? held.lease() : (RedlockLease) lease;
		}
		observeHold(acquiring, lease, newLease);
		return lease;
	}

	/**
	 * Runs a blocking acquisition that reports an interrupt as its own failure, as the
	 * read, write and permit acquisitions do.
	 * @param reentrant whether the acquisition joins the thread's hold of the key: asked
	 * only when there is an observer
	 */
	public Lease uninterruptible(String key, Duration ttl, Duration waitTime, LockObserver.Kind kind,
			BooleanSupplier reentrant, Supplier<Lease> acquisition) {
		if (this.observer == null) {
			return acquisition.get();
		}
		try {
			return blocking(key, ttl, waitTime, kind, reentrant.getAsBoolean(), () -> {
			}, acquisition::get);
		}
		catch (InterruptedException ex) {
			// a Supplier throws none
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Runs an asynchronous acquisition of any kind, telling the observer if there is one:
	 * started on the caller's thread, ended on a callback thread. The caller's future is
	 * completed off the I/O threads, after the lease's auto-extension has begun and the
	 * observer has heard of the grant; cancelling it abandons the attempt, and a lease
	 * granted to an attempt whose caller gave up is released at once.
	 * @param start starts the engine's acquisition
	 */
	public CompletableFuture<Lease> async(String key, Duration ttl, Duration waitTime, boolean autoExtend,
			LockObserver.Kind kind, Supplier<CompletableFuture<RedlockLease>> start) {
		LockObserver observer = this.observer;
		LockObserver.Acquiring acquiring = (observer != null)
				? observer.acquisitionStarted(key, ttl, waitTime, LockObserver.Mode.ASYNC, false, kind) : null;
		CompletableFuture<RedlockLease> lease = start.get();
		CompletableFuture<Lease> result = new CompletableFuture<>();
		// the observer hears of one end: the grant, or the first failure
		AtomicBoolean ended = new AtomicBoolean();
		lease.whenCompleteAsync((held, ex) -> {
			if (ex != null) {
				if (acquiring != null && ended.compareAndSet(false, true)) {
					failed(acquiring, key, ex);
				}
				result.completeExceptionally(ex);
				return;
			}
			if (autoExtend) {
				held.autoExtend(ttl);
			}
			if (acquiring != null && !result.isDone() && ended.compareAndSet(false, true)) {
				// told before the caller's continuations run
				observeHold(acquiring, held, held);
			}
			if (!result.complete(held)) {
				held.releaseAsync(); // the caller gave up meanwhile
			}
		}, this.callbacks);
		// cancelling the caller's future abandons the attempt
		result.whenComplete((held, ex) -> {
			if (ex != null) {
				lease.cancel(false);
				if (acquiring != null && ended.compareAndSet(false, true)) {
					failed(acquiring, key, ex);
				}
			}
		});
		return result;
	}

	/**
	 * Tells the observer that the lock is held and, for a new lease, has its hold
	 * observed; never throws, since the caller holds the lock now.
	 */
	private static void observeHold(LockObserver.Acquiring acquiring, Lease lease, @Nullable RedlockLease newLease) {
		try {
			acquiring.acquired(lease);
			if (newLease != null) {
				LockObserver.Holding holding = acquiring.hold(newLease);
				if (holding != null) {
					newLease.observe(holding);
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("LockObserver failed for lock '" + LockKeys.printable(lease.key()) + "'", ex);
		}
	}

	private static void failed(LockObserver.Acquiring acquiring, String key, Throwable failure) {
		try {
			acquiring.failed((failure instanceof CompletionException wrapped && wrapped.getCause() != null)
					? wrapped.getCause() : failure);
		}
		catch (RuntimeException ex) {
			logger.warn("LockObserver failed for lock '" + LockKeys.printable(key) + "'", ex);
		}
	}

	/**
	 * A blocking acquisition.
	 */
	@FunctionalInterface
	public interface Acquire {

		Lease acquire() throws InterruptedException;

	}

}
