package io.github.redlock.engine.kinds;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;
import io.github.redlock.LockLostException;
import io.github.redlock.engine.lease.ThreadHolds;

/**
 * A {@link Lock} over one key of a {@code RedlockRegistry}, as {@link Lock} specifies it:
 * held per thread and reentrant; kept extended by the watchdog until {@link #unlock()}.
 * {@code lock()} and {@code tryLock()} are not interruptible (an interrupt is kept for
 * the caller); {@code lockInterruptibly()} and {@code tryLock(time, unit)} throw
 * {@link InterruptedException} with the interrupted status cleared; a time of zero or
 * less is one attempt; {@code unlock()} by a thread that does not hold the lock throws
 * {@link IllegalMonitorStateException}; {@code newCondition()} throws
 * {@link UnsupportedOperationException}.
 *
 * @author redlock contributors
 */
public final class LockView implements Lock {

	private static final Duration FOREVER = Duration.ofDays(365);

	private final Duration defaultTtl;

	private final ThreadHolds holds;

	private final String key;

	private final Acquirer acquirer;

	private final String kind;

	/**
	 * Makes a view that acquires through {@code acquirer}.
	 * @param defaultTtl the TTL of {@code lock()} and {@code tryLock}
	 * @param holds the thread's holds of the kind {@code acquirer} acquires
	 * @param key the lock key
	 * @param acquirer the exclusive lock's, a read lock's or the write lock's acquisition
	 * @param kind what the view is called in {@code toString()}
	 */
	public LockView(Duration defaultTtl, ThreadHolds holds, String key, Acquirer acquirer, String kind) {
		this.defaultTtl = defaultTtl;
		this.holds = holds;
		this.key = key;
		this.acquirer = acquirer;
		this.kind = kind;
	}

	@Override
	public void lock() {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					lockInterruptibly();
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (HeldByThisThreadException ex) {
					throw ex; // waiting would never end
				}
				catch (LockAcquisitionException ex) {
					// lock() waits for as long as it takes
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Acquires the lock unless the current thread is interrupted, waiting as long as it
	 * takes.
	 * @throws InterruptedException if the thread was interrupted on entry or while
	 * waiting; its interrupted status is cleared, as {@link Lock} specifies
	 */
	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw interrupted();
		}
		this.acquirer.acquire(this.key, this.defaultTtl, FOREVER, true);
	}

	/**
	 * Makes one attempt to acquire the lock. Not interruptible, as {@link Lock}
	 * specifies: an interrupted thread tries all the same and keeps its interrupted
	 * status.
	 */
	@Override
	public boolean tryLock() {
		boolean interrupted = Thread.interrupted();
		try {
			return attempt(Duration.ZERO);
		}
		catch (InterruptedException ex) {
			interrupted = true; // interrupted during the attempt: it is abandoned
			return false;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Acquires the lock if it becomes free within the time; a time of zero or less makes
	 * one attempt.
	 * @throws InterruptedException if the thread was interrupted on entry or while
	 * waiting; its interrupted status is cleared, as {@link Lock} specifies
	 */
	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw interrupted();
		}
		return attempt(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
	}

	private boolean attempt(Duration waitTime) throws InterruptedException {
		try {
			this.acquirer.acquire(this.key, this.defaultTtl, waitTime, true);
			return true;
		}
		catch (LockAcquisitionException ex) {
			return false; // also when this thread's own hold refuses it, as
							// ReentrantReadWriteLock's tryLock does
		}
	}

	private InterruptedException interrupted() {
		return new InterruptedException("Interrupted before acquiring lock '" + LockKeys.printable(this.key) + "'");
	}

	/**
	 * Releases one hold of the current thread.
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockLostException if this was the last hold and the lock had been lost
	 * while held
	 */
	@Override
	public void unlock() {
		ThreadHolds.Hold hold = this.holds.current(this.key);
		if (this.holds.release(hold) && hold.lease().isLost()) {
			throw hold.lease().lossCause();
		}
	}

	/**
	 * Refused: a distributed lock has no conditions.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Distributed locks do not support conditions");
	}

	@Override
	public String toString() {
		return this.kind + "[" + LockKeys.printable(this.key) + "]";
	}

	/**
	 * Acquires a lease for the view, held by the current thread.
	 */
	@FunctionalInterface
	public interface Acquirer {

		Lease acquire(String key, Duration ttl, Duration waitTime, boolean autoExtend) throws InterruptedException;

	}

}
