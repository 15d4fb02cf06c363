package io.github.redlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redlock.Durations;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.LockRegistry;
import io.github.redlock.RedlockException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;

/**
 * What every kind of {@code @DistributedLock} method shares: the registry and settings,
 * acquiring a method's keys in order (all or nothing), telling whether a lock was lost
 * while the method ran, applying the {@link LostLockPolicy}, and releasing. The registry
 * and {@link DistributedLockSettings} are looked up on first use, so that the advisor can
 * be created before them.
 *
 * @author redlock contributors
 */
final class MethodLocks {

	private static final Log logger = LogFactory.getLog(MethodLocks.class);

	// set through the advisor, which is BeanFactoryAware, before any call
	@SuppressWarnings("NullAway.Init")
	private volatile BeanFactory beanFactory;

	private volatile @Nullable LockRegistry registry;

	private volatile @Nullable DistributedLockSettings settings;

	void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	BeanFactory beanFactory() {
		return this.beanFactory;
	}

	LockRegistry registry() {
		LockRegistry current = this.registry;
		if (current == null) {
			current = this.beanFactory.getBean(LockRegistry.class);
			this.registry = current;
		}
		return current;
	}

	DistributedLockSettings settings() {
		DistributedLockSettings current = this.settings;
		if (current == null) {
			current = this.beanFactory.getBeanProvider(DistributedLockSettings.class)
				.getIfAvailable(DistributedLockSettings::defaults);
			this.settings = current;
		}
		return current;
	}

	/**
	 * Acquires every key in order, waiting on the calling thread within one wait time for
	 * all of them; on any failure releases those already held.
	 * @param forThisCall whether each lease must belong to this call alone (never shared
	 * with a hold of the same thread), for methods whose work outlives the call, which a
	 * thread-reentrant lease would let a second call join
	 */
	List<Lease> acquireAll(LockOperation operation, List<String> keys, Duration ttl, Duration waitTime,
			boolean forThisCall) {
		long deadline = System.nanoTime() + waitTime.toNanos();
		List<Lease> acquired = new ArrayList<>(keys.size());
		String current = keys.get(0);
		try {
			for (String key : keys) {
				current = key;
				// one wait time for all the keys: later keys get what is left of it
				Duration left = acquired.isEmpty() ? waitTime
						: Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
				acquired.add(forThisCall ? acquireForThisCall(operation, key, ttl, left)
						: acquire(operation, key, ttl, left));
			}
			return acquired;
		}
		catch (LockAcquisitionException ex) {
			releaseAll(acquired);
			throw new LockAcquisitionException(acquisitionMessage(operation, ex), ex);
		}
		catch (InterruptedException ex) {
			releaseAll(acquired);
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException("Interrupted while " + operation.description() + " waited for lock '"
					+ LockKeys.printable(current) + "'; no lock is held", current, ex);
		}
		catch (RuntimeException | Error ex) {
			releaseAll(acquired);
			throw ex;
		}
	}

	/**
	 * Acquires one key, blocking, as the operation's mode or permits say.
	 */
	private Lease acquire(LockOperation operation, String key, Duration ttl, Duration waitTime)
			throws InterruptedException {
		if (operation.permits() > 0) {
			return registry().semaphore(key, operation.permits()).acquire(ttl, waitTime, operation.autoExtend());
		}
		return switch (operation.mode()) {
			case READ -> registry().acquireRead(key, ttl, waitTime, operation.autoExtend());
			case WRITE -> registry().acquireWrite(key, ttl, waitTime, operation.autoExtend());
			default -> registry().acquire(key, ttl, waitTime, operation.autoExtend());
		};
	}

	/**
	 * Acquires one key without blocking, as the operation's mode or permits say: a lease
	 * of its own, never joined to a hold of the calling thread.
	 */
	CompletableFuture<Lease> acquireAsync(LockOperation operation, String key, Duration ttl, Duration waitTime) {
		if (operation.permits() > 0) {
			return registry().semaphore(key, operation.permits()).acquireAsync(ttl, waitTime, operation.autoExtend());
		}
		return switch (operation.mode()) {
			case READ -> registry().acquireReadAsync(key, ttl, waitTime, operation.autoExtend());
			case WRITE -> registry().acquireWriteAsync(key, ttl, waitTime, operation.autoExtend());
			default -> registry().acquireAsync(key, ttl, waitTime, operation.autoExtend());
		};
	}

	private Lease acquireForThisCall(LockOperation operation, String key, Duration ttl, Duration waitTime)
			throws InterruptedException {
		CompletableFuture<Lease> pending = acquireAsync(operation, key, ttl, waitTime);
		Duration bound = registry().decisionBound(waitTime);
		try {
			return pending.get(bound.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			pending.cancel(false);
			throw ex;
		}
		catch (TimeoutException ex) {
			pending.cancel(false);
			throw new LockAcquisitionException(LockAcquisitionException.Reason.NO_QUORUM, key,
					"Lock '" + LockKeys.printable(key) + "' was not acquired: the registry did not decide within "
							+ Durations.format(bound) + ", so the acquisition was abandoned (a lock granted to it"
							+ " later is released at once)");
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new RedlockException("Could not acquire lock '" + LockKeys.printable(key) + "'", cause);
		}
	}

	static String acquisitionMessage(LockOperation operation, LockAcquisitionException ex) {
		return "@DistributedLock on " + operation.description() + ": " + ex.getMessage();
	}

	/**
	 * Returns an exception that says a lock was lost while the method ran, or
	 * {@code null} if every lease is still held.
	 */
	@Nullable LockLostException lost(LockOperation operation, List<Lease> leases) {
		for (Lease lease : leases) {
			if (!lease.isHeld()) {
				return new LockLostException(lease.key(), "it was lost while " + operation.description()
						+ " ran (it expired, or could not be extended on a quorum of nodes)");
			}
		}
		return null;
	}

	/**
	 * Applies the lost-lock policy: throws {@code lost}, or logs it.
	 */
	void onLost(LockLostException lost) {
		if (lostLockPolicy() == LostLockPolicy.THROW) {
			throw lost;
		}
		logger.warn(lost.getMessage());
	}

	LostLockPolicy lostLockPolicy() {
		return settings().getLostLockPolicy();
	}

	/**
	 * Returns whether a failed acquisition is one that the operation skips: it asked to
	 * skip when locked, and another owner holds the lock; logs the skip.
	 */
	static boolean skips(LockOperation operation, Throwable failure) {
		if (!operation.skipIfLocked() || !(failure instanceof LockAcquisitionException ex)
				|| ex.getReason() != LockAcquisitionException.Reason.HELD) {
			return false;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Skipped " + operation.description() + ": lock '"
					+ LockKeys.printable(String.valueOf(ex.getKey())) + "' is held elsewhere");
		}
		return true;
	}

	/**
	 * Returns when the operation's minimum hold of leases acquired now ends, on
	 * {@link System#nanoTime()}, or {@code null} if it has none.
	 */
	static @Nullable Long holdUntil(LockOperation operation) {
		Duration holdAtLeast = operation.holdAtLeast();
		return (holdAtLeast != null) ? System.nanoTime() + holdAtLeast.toNanos() : null;
	}

	/**
	 * Releases the leases, blocking, in the reverse of their lock order; with a minimum
	 * hold, leaves each lock on the nodes until {@code holdUntil} (a
	 * {@link System#nanoTime()}), when that is still ahead.
	 */
	static void releaseAll(List<Lease> leases, @Nullable Long holdUntil) {
		if (holdUntil == null) {
			releaseAll(leases);
			return;
		}
		Duration left = Duration.ofNanos(holdUntil - System.nanoTime());
		for (int i = leases.size() - 1; i >= 0; i--) {
			try {
				leases.get(i).releaseAfter(left);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not release lock '" + LockKeys.printable(leases.get(i).key()) + "'", ex);
			}
		}
	}

	/**
	 * Releases the leases, blocking, in the reverse of their lock order.
	 */
	static void releaseAll(List<Lease> leases) {
		for (int i = leases.size() - 1; i >= 0; i--) {
			try {
				leases.get(i).release();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not release lock '" + LockKeys.printable(leases.get(i).key()) + "'", ex);
			}
		}
	}

	/**
	 * Releases the leases without blocking.
	 * @return a future that completes, never exceptionally, when every release ended
	 */
	static CompletableFuture<Void> releaseAllAsync(List<Lease> leases) {
		CompletableFuture<?>[] releases = new CompletableFuture<?>[leases.size()];
		for (int i = 0; i < releases.length; i++) {
			releases[i] = leases.get(i).releaseAsync().exceptionally((ex) -> null);
		}
		return CompletableFuture.allOf(releases);
	}

}
