package io.github.redlock.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockKeys;

/**
 * A {@link Lock} over one key of an {@link InMemoryLockRegistry}, with the semantics of
 * the quorum registry's view: held per thread and reentrant, kept extended until
 * {@link #unlock()}; {@code lock()} and {@code tryLock()} not interruptible (an interrupt
 * is kept for the caller); {@code lockInterruptibly()} and {@code tryLock(time, unit)}
 * throwing {@link InterruptedException} with the interrupted status cleared; a time of
 * zero or less one attempt; {@code unlock()} by a thread that does not hold the lock
 * throwing {@link IllegalMonitorStateException}; no conditions.
 *
 * @author redlock contributors
 */
final class MemoryLockView implements Lock {

	private static final Duration FOREVER = Duration.ofDays(365);

	private final InMemoryLockRegistry registry;

	private final String key;

	private final MemoryStore.Kind kind;

	MemoryLockView(InMemoryLockRegistry registry, String key, MemoryStore.Kind kind) {
		this.registry = registry;
		this.key = key;
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
				catch (LockAcquisitionException ex) {
					if (ex.getReason() == LockAcquisitionException.Reason.HELD_BY_THIS_THREAD) {
						throw ex; // waiting would never end
					}
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw interrupted();
		}
		this.registry.held(this.kind, this.key, this.registry.defaultTtl(), FOREVER, true);
	}

	@Override
	public boolean tryLock() {
		boolean interrupted = Thread.interrupted();
		try {
			return attempt(Duration.ZERO);
		}
		catch (InterruptedException ex) {
			interrupted = true;
			return false;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw interrupted();
		}
		return attempt(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
	}

	private boolean attempt(Duration waitTime) throws InterruptedException {
		try {
			this.registry.held(this.kind, this.key, this.registry.defaultTtl(), waitTime, true);
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

	@Override
	public void unlock() {
		this.registry.unlock(this.kind, this.key);
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Distributed locks do not support conditions");
	}

	@Override
	public String toString() {
		return "MemoryLock[" + this.kind.name().toLowerCase() + " '" + LockKeys.printable(this.key) + "']";
	}

}
