package io.github.redlock.contract;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redlock.Lease;
import io.github.redlock.LockRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link java.util.concurrent.locks.Lock} as the JDK specifies it, clause by clause, for
 * the lock {@link LockRegistry#obtain} hands out (issue 24, deliverable 3). Every
 * registry runs it: the quorum registry against real nodes
 * ({@code LockViewContractIntegrationTests}), the in-memory one in redlock-test. A second
 * registry over the same locks stands for another process.
 *
 * @author redlock contributors
 */
public abstract class LockViewContract {

	private static final ExecutorService threads = Executors.newCachedThreadPool();

	/**
	 * Returns the registry under test, with the defaults a user gets.
	 * @return the registry
	 */
	protected abstract LockRegistry registry();

	/**
	 * Returns a registry over the same locks that stands for another process.
	 * @return the other registry
	 */
	protected abstract LockRegistry otherProcess();

	/**
	 * Returns how many acquisitions wait in {@link #registry()} now.
	 * @return the waiting acquisitions
	 */
	protected abstract int waiters();

	@AfterEach
	protected void clearInterrupt() {
		Thread.interrupted();
	}

	@AfterAll
	protected static void shutDownThreads() {
		threads.shutdownNow();
	}

	// lock(): "acquires the lock", waiting as long as it takes; reentrant here
	@Test
	public void lockAcquiresAndUnlockReleases() {
		Lock lock = registry().obtain("contract-lock");
		lock.lock();
		lock.lock();
		assertThat(otherProcess().tryAcquire("contract-lock", Duration.ofSeconds(5))).isEmpty();
		lock.unlock();
		assertThat(otherProcess().tryAcquire("contract-lock", Duration.ofSeconds(5))).isEmpty();
		lock.unlock();
		otherProcess().tryAcquire("contract-lock", Duration.ofSeconds(5)).orElseThrow().release();
	}

	// lock(): not interruptible; an interrupt while waiting leaves the flag set when it
	// returns
	@Test
	public void lockIsNotInterruptedAndKeepsTheInterruptFlag() throws Exception {
		Lease other = otherProcess().acquire("contract-lock-uninterruptible", Duration.ofSeconds(30), Duration.ZERO);
		Lock lock = registry().obtain("contract-lock-uninterruptible");
		CompletableFuture<Boolean> flagOnReturn = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			lock.lock();
			flagOnReturn.complete(Thread.currentThread().isInterrupted());
			lock.unlock();
		});
		waiter.start();
		// it stands in its registry's line for the lock: interrupted while it waits,
		// not before it began (a fixed 300 ms sleep assumed it)
		await().atMost(Duration.ofSeconds(10)).until(() -> waiters() > 0);
		waiter.interrupt();
		Thread.sleep(300); // it keeps waiting for a stated time
		assertThat(flagOnReturn).isNotDone();
		other.release();
		assertThat(flagOnReturn.get(30, TimeUnit.SECONDS)).as("interrupt flag when lock() returned").isTrue();
		waiter.join(30_000);
	}

	// tryLock(): "acquires the lock only if it is free at the time of invocation"
	@Test
	public void tryLockTakesAFreeLockAndRefusesAHeldOne() {
		Lock lock = registry().obtain("contract-trylock");
		try (Lease other = otherProcess().tryAcquire("contract-trylock", Duration.ofSeconds(30)).orElseThrow()) {
			assertThat(lock.tryLock()).isFalse();
		}
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	// tryLock() is not interruptible: with the flag set it still tries, and leaves the
	// flag as it was
	@Test
	public void tryLockWithTheInterruptFlagSetStillTriesAndKeepsTheFlag() {
		Lock lock = registry().obtain("contract-trylock-interrupted");
		Thread.currentThread().interrupt();
		boolean locked = lock.tryLock();
		boolean interrupted = Thread.interrupted();
		assertThat(locked).isTrue();
		assertThat(interrupted).isTrue();
		lock.unlock();
	}

	// tryLock(time, unit): "If the time is less than or equal to zero, the method will
	// not wait at all". Failed before for a negative time: IllegalArgumentException
	// ("waitTime must not be negative") instead of one attempt.
	@Test
	public void tryLockWithZeroOrLessIsOneAttempt() throws Exception {
		Lock lock = registry().obtain("contract-trylock-zero");
		for (long time : new long[] { 0, -1, Long.MIN_VALUE }) {
			assertThat(lock.tryLock(time, TimeUnit.SECONDS)).as("free, %d s", time).isTrue();
			lock.unlock();
		}
		try (Lease other = otherProcess().tryAcquire("contract-trylock-zero", Duration.ofSeconds(30)).orElseThrow()) {
			for (long time : new long[] { 0, -1, Long.MIN_VALUE }) {
				assertThat(lock.tryLock(time, TimeUnit.SECONDS)).as("held elsewhere, %d s", time).isFalse();
			}
		}
	}

	// tryLock(time, unit): waits up to the time for the lock to be released
	@Test
	public void timedTryLockGetsTheLockWhenReleasedWithinTheTime() throws Exception {
		Lock lock = registry().obtain("contract-trylock-timed");
		Lease other = otherProcess().acquire("contract-trylock-timed", Duration.ofSeconds(30), Duration.ZERO);
		Future<Boolean> locked = threads.submit(() -> {
			boolean got = lock.tryLock(30, TimeUnit.SECONDS);
			if (got) {
				lock.unlock();
			}
			return got;
		});
		Thread.sleep(300); // held elsewhere for a stated time
		other.release();
		assertThat(locked.get(30, TimeUnit.SECONDS)).isTrue();
	}

	// lockInterruptibly(): "If the current thread has its interrupted status set on entry
	// to this method ... then InterruptedException is thrown and the current thread's
	// interrupted status is cleared."
	@Test
	public void lockInterruptiblyWithTheFlagSetThrowsAndClearsIt() {
		Lock lock = registry().obtain("contract-interruptibly-entry");
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class).isThrownBy(lock::lockInterruptibly);
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		otherProcess().tryAcquire("contract-interruptibly-entry", Duration.ofSeconds(5)).orElseThrow().release();
	}

	// tryLock(time, unit): the same clause
	@Test
	public void timedTryLockWithTheFlagSetThrowsAndClearsIt() {
		Lock lock = registry().obtain("contract-trylock-entry");
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> lock.tryLock(5, TimeUnit.SECONDS));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		otherProcess().tryAcquire("contract-trylock-entry", Duration.ofSeconds(5)).orElseThrow().release();
	}

	// lockInterruptibly(): "... is interrupted while acquiring the lock ... then
	// InterruptedException is thrown and the current thread's interrupted status is
	// cleared."
	@Test
	public void lockInterruptiblyInterruptedWhileWaitingThrowsWithTheFlagCleared() throws Exception {
		assertInterruptedWhileWaiting("contract-interruptibly-waiting", Lock::lockInterruptibly);
	}

	// tryLock(time, unit): the same clause
	@Test
	public void timedTryLockInterruptedWhileWaitingThrowsWithTheFlagCleared() throws Exception {
		assertInterruptedWhileWaiting("contract-trylock-waiting", (lock) -> lock.tryLock(60, TimeUnit.SECONDS));
	}

	// unlock(): only the holder may release; IllegalMonitorStateException otherwise, as
	// ReentrantLock does
	@Test
	public void unlockByAThreadThatDoesNotHoldTheLockThrowsIllegalMonitorState() throws Exception {
		Lock lock = registry().obtain("contract-unlock");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		lock.lock();
		try {
			Future<?> unlocked = threads.submit(lock::unlock);
			assertThat(unlocked).failsWithin(Duration.ofSeconds(30))
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.withCauseInstanceOf(IllegalMonitorStateException.class);
			assertThat(otherProcess().tryAcquire("contract-unlock", Duration.ofSeconds(5))).isEmpty();
		}
		finally {
			lock.unlock();
		}
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
	}

	// newCondition(): "UnsupportedOperationException if this Lock implementation does
	// not support conditions", as LockRegistry#obtain documents
	@Test
	public void newConditionIsRefused() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry().obtain("contract-condition").newCondition());
	}

	@FunctionalInterface
	private interface Acquire {

		void on(Lock lock) throws InterruptedException;

	}

	private void assertInterruptedWhileWaiting(String key, Acquire acquire) throws Exception {
		Lease other = otherProcess().acquire(key, Duration.ofSeconds(30), Duration.ZERO);
		Lock lock = registry().obtain(key);
		CompletableFuture<Boolean> flagAfterThrow = new CompletableFuture<>();
		Future<?> waiter = threads.submit(() -> {
			try {
				acquire.on(lock);
				flagAfterThrow.completeExceptionally(new AssertionError("acquired a lock held elsewhere"));
			}
			catch (InterruptedException ex) {
				flagAfterThrow.complete(Thread.currentThread().isInterrupted());
			}
			catch (Throwable ex) {
				flagAfterThrow.completeExceptionally(ex);
			}
			Thread.interrupted(); // pool hygiene
		});
		// it stands in its registry's line for the lock (a fixed 300 ms sleep assumed it)
		await().atMost(Duration.ofSeconds(10)).until(() -> waiters() > 0);
		waiter.cancel(true); // interrupts the waiting thread
		assertThat(flagAfterThrow.get(30, TimeUnit.SECONDS)).as("interrupt flag after InterruptedException").isFalse();
		other.release();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> otherProcess().tryAcquire(key, Duration.ofSeconds(5)).map((held) -> {
				held.release();
				return true;
			}).orElse(false));
	}

}
