package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.github.redlock.LockKeys;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;

/**
 * A {@link Lock} over one key of a {@link RedlockRegistry}. Held per thread and
 * reentrant; kept extended by the watchdog until {@link #unlock()}.
 *
 * @author redlock contributors
 */
final class LockView implements Lock {

	private static final Duration FOREVER = Duration.ofDays(365);

	private final RedlockRegistry registry;

	private final ThreadHolds holds;

	private final String key;

	LockView(RedlockRegistry registry, ThreadHolds holds, String key) {
		this.registry = registry;
		this.holds = holds;
		this.key = key;
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

	@Override
	public void lockInterruptibly() throws InterruptedException {
		this.registry.acquire(this.key, this.registry.settings().defaultTtl(), FOREVER, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return tryLock(0, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		try {
			this.registry.acquire(this.key, this.registry.settings().defaultTtl(), Duration.ofNanos(unit.toNanos(time)),
					true);
			return true;
		}
		catch (LockAcquisitionException ex) {
			return false;
		}
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

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Distributed locks do not support conditions");
	}

	@Override
	public String toString() {
		return "DistributedLock[" + LockKeys.printable(this.key) + "]";
	}

}
