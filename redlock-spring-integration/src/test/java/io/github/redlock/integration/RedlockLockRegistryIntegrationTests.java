package io.github.redlock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The lock contract of {@link RedlockLockRegistry} against three real redis-server nodes:
 * Spring Integration's registry semantics (reentrancy, String keys, non-holders refused,
 * unlock after an expiry, renewal, eviction of unused locks) with every acquisition going
 * through the quorum. A second {@link RedlockRegistry} over the same nodes stands for
 * another process.
 */
class RedlockLockRegistryIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private static final Duration TTL = Duration.ofSeconds(1);

	private static RedlockRegistry redlock;

	private static RedlockRegistry otherProcessRedlock;

	private static RedlockLockRegistry registry;

	private static RedlockLockRegistry otherProcess;

	private static final ExecutorService otherThreads = Executors.newCachedThreadPool();

	@BeforeAll
	static void startRegistries() {
		redlock = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
		otherProcessRedlock = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
		registry = new RedlockLockRegistry(redlock, Duration.ofSeconds(5));
		otherProcess = new RedlockLockRegistry(otherProcessRedlock, Duration.ofSeconds(5));
	}

	@AfterAll
	static void closeRegistries() {
		otherThreads.shutdownNow();
		redlock.close();
		otherProcessRedlock.close();
	}

	@Test
	void locksAreReentrantPerThreadAndReleasedOnTheLastUnlock() throws Exception {
		FencedLock lock = registry.obtain("reentrant");
		lock.lock();
		long token = lock.fencingToken();
		lock.lock();
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.fencingToken()).as("re-entering keeps the lease and its token").isEqualTo(token);
		lock.unlock();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(inAnotherThread(() -> otherProcess.obtain("reentrant").tryLock())).isFalse();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		Lock other = otherProcess.obtain("reentrant");
		assertThat(other.tryLock()).isTrue();
		assertThat(((FencedLock) other).fencingToken()).isGreaterThan(token);
		other.unlock();
	}

	@Test
	void anotherThreadOfTheProcessIsKeptOutUntilTheHolderUnlocks() throws Exception {
		Lock lock = registry.obtain("threads");
		lock.lock();
		try {
			assertThat(inAnotherThread(() -> registry.obtain("threads").tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
		}
		finally {
			lock.unlock();
		}
		assertThat(inAnotherThread(() -> {
			Lock same = registry.obtain("threads");
			boolean locked = same.tryLock();
			same.unlock();
			return locked;
		})).isTrue();
	}

	@Test
	void anotherProcessIsKeptOutAndGetsAGreaterFencingToken() throws Exception {
		FencedLock lock = registry.obtain("processes");
		lock.lock(TTL.multipliedBy(3));
		long token = lock.fencingToken();
		// the same thread, through another registry: the quorum decides, not the thread
		FencedLock other = otherProcess.obtain("processes");
		assertThat(other.tryLock(Duration.ofMillis(300), TTL)).isFalse();
		lock.unlock();
		assertThat(other.tryLock()).isTrue();
		assertThat(other.fencingToken()).isGreaterThan(token);
		other.unlock();
	}

	@Test
	void keysMustBeStrings() {
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42))
			.withMessageContaining("keys must be Strings")
			.withMessageContaining("java.lang.Integer");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.renewLock(42L))
			.withMessageContaining("java.lang.Long");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(null)).withMessageContaining("null");
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockIsRefused() throws Exception {
		Lock lock = registry.obtain("non-holder");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock)
			.withMessageContaining("not held by thread");
		lock.lock();
		try {
			Throwable refused = inAnotherThread(() -> {
				try {
					lock.unlock();
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			});
			assertThat(refused).isInstanceOf(IllegalMonitorStateException.class)
				.hasMessageContaining("'non-holder' is not held by thread");
			assertThat(inAnotherThread(() -> otherProcess.obtain("non-holder").tryLock())).isFalse();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void timedTryLockWaitsAndGetsTheLockOnceReleased() throws Exception {
		Lock lock = registry.obtain("waiting");
		lock.lock();
		CountDownLatch waiting = new CountDownLatch(1);
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			Lock other = otherProcess.obtain("waiting");
			waiting.countDown();
			try {
				boolean locked = other.tryLock(20, TimeUnit.SECONDS);
				if (locked) {
					other.unlock();
				}
				return locked;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}, otherThreads);
		waiting.await();
		Thread.sleep(300); // hold it while the other waits
		assertThat(waiter).isNotDone();
		lock.unlock();
		assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void anUnrenewedLeaseExpiresLetsAnotherProcessInAndItsUnlockReportsTheLoss() throws Exception {
		FencedLock lock = registry.obtain("expiring");
		lock.lock(TTL);
		long token = lock.fencingToken();
		FencedLock other = otherProcess.obtain("expiring");
		assertThat(inAnotherThread(() -> {
			boolean locked = other.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(5));
			long otherToken = other.fencingToken();
			other.unlock();
			return locked && otherToken > token;
		})).isTrue();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock)
			.withMessageContaining("'expiring' was lost")
			.withMessageContaining("The integrity of data protected by this lock may have been compromised")
			.withCauseInstanceOf(LockLostException.class);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.tryLock()).as("the local lock was given back").isTrue();
		lock.unlock();
	}

	@Test
	void reenteringRefreshesTheLeaseAsALeaderInitiatorsHeartbeatDoes() throws Exception {
		FencedLock lock = registry.obtain("heartbeat");
		assertThat(lock.tryLock(Duration.ZERO, TTL)).isTrue();
		long end = System.nanoTime() + TTL.multipliedBy(2).toNanos();
		while (System.nanoTime() < end) {
			Thread.sleep(TTL.toMillis() / 4);
			assertThat(lock.tryLock(Duration.ZERO, TTL)).isTrue();
			lock.unlock();
		}
		assertThat(inAnotherThread(() -> otherProcess.obtain("heartbeat").tryLock())).isFalse();
		lock.unlock(); // held throughout: no loss to report
	}

	@Test
	void aReenteringAcquisitionThatFindsTheLeaseLostFailsAndEndsTheThreadsHolds() throws Exception {
		FencedLock lock = registry.obtain("lost-on-reentry");
		lock.lock(TTL);
		lock.lock(TTL);
		long token = lock.fencingToken();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeldByCurrentThread());
		// another process got it in between: re-entering must not take it over silently
		assertThat(inAnotherThread(() -> {
			Lock other = otherProcess.obtain("lost-on-reentry");
			boolean locked = other.tryLock();
			other.unlock();
			return locked;
		})).isTrue();
		assertThat(lock.tryLock()).as("a lost lease is not refreshed").isFalse();
		assertThatExceptionOfType(ConcurrentModificationException.class).as("the two outer holds report the loss")
			.isThrownBy(lock::unlock)
			.withCauseInstanceOf(LockLostException.class);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(lock.tryLock()).as("the next acquisition is a new one").isTrue();
		assertThat(lock.fencingToken()).isGreaterThan(token);
		lock.unlock();
	}

	@Test
	void aReenteringLockThatFindsTheLeaseLostThrows() throws Exception {
		DistributedLock lock = registry.obtain("lock-lost-on-reentry");
		lock.lock(TTL);
		await().pollInSameThread()
			.atMost(Duration.ofSeconds(10))
			.until(() -> !((FencedLock) lock).isHeldByCurrentThread());
		assertThatExceptionOfType(CannotAcquireLockException.class).isThrownBy(lock::lock)
			.withMessageContaining("its lease was lost while this thread held it")
			.withCauseInstanceOf(LockLostException.class);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
	}

	@Test
	void renewLockExtendsTheLeaseOfTheHoldingThreadOnly() throws Exception {
		DistributedLock lock = registry.obtain("renewed");
		lock.lock(TTL);
		try {
			assertThat(inAnotherThread(() -> {
				try {
					registry.renewLock("renewed");
					return null;
				}
				catch (RuntimeException ex) {
					return ex;
				}
			})).isExactlyInstanceOf(IllegalStateException.class).hasMessageContaining("does not hold it");
			registry.renewLock("renewed", TTL.multipliedBy(4));
			Thread.sleep(TTL.multipliedBy(2).toMillis()); // past the first TTL
			assertThat(inAnotherThread(() -> otherProcess.obtain("renewed").tryLock())).isFalse();
			registry.renewLock("renewed");
		}
		finally {
			lock.unlock(); // throws if the lease had run out
		}
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("never-locked"))
			.withMessageContaining("does not hold it");
	}

	@Test
	void renewLockOfALostLeaseSaysItWasLost() throws Exception {
		DistributedLock lock = registry.obtain("renew-lost");
		lock.lock(TTL);
		await().pollInSameThread()
			.atMost(Duration.ofSeconds(10))
			.until(() -> !((FencedLock) lock).isHeldByCurrentThread());
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("renew-lost"))
			.withMessageContaining("Could not renew lock 'renew-lost'")
			.withMessageContaining("was lost");
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
	}

	@Test
	void aRenewalTaskSchedulerKeepsLeasesAliveUntilUnlocked() throws Exception {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.initialize();
		try {
			RedlockLockRegistry renewing = new RedlockLockRegistry(redlock, TTL);
			renewing.setRenewalTaskScheduler(scheduler);
			Lock lock = renewing.obtain("scheduled");
			lock.lock();
			Thread.sleep(TTL.multipliedBy(2).toMillis());
			assertThat(inAnotherThread(() -> otherProcess.obtain("scheduled").tryLock())).isFalse();
			lock.unlock(); // held throughout: no loss to report
		}
		finally {
			scheduler.shutdown();
		}
	}

	@Test
	void expireUnusedOlderThanDropsOnlyUnusedLocks() throws Exception {
		RedlockLockRegistry locks = new RedlockLockRegistry(redlock, TTL);
		Lock held = locks.obtain("held");
		Lock unused = locks.obtain("unused");
		held.lock();
		try {
			locks.expireUnusedOlderThan(60_000);
			assertThat(locks.obtain("unused")).as("too recent to drop").isSameAs(unused);
			locks.expireUnusedOlderThan(0);
			assertThat(locks.obtain("held")).isSameAs(held);
			assertThat(locks.obtain("unused")).isNotSameAs(unused);
			// a dropped lock still excludes other threads: the quorum decides
			ExecutorService holder = Executors.newSingleThreadExecutor();
			try {
				assertThat(holder.submit(() -> unused.tryLock()).get(30, TimeUnit.SECONDS)).isTrue();
				assertThat(locks.obtain("unused").tryLock()).isFalse();
				holder.submit(() -> unused.unlock()).get(30, TimeUnit.SECONDS);
			}
			finally {
				holder.shutdownNow();
			}
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void conditionsAreNotSupported() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.obtain("condition").newCondition());
	}

	@Test
	void lockInterruptiblyStopsWaitingWhenInterruptedAndLockDoesNot() throws Exception {
		Lock lock = registry.obtain("interrupted");
		lock.lock();
		try {
			Lock other = otherProcess.obtain("interrupted");
			CountDownLatch started = new CountDownLatch(1);
			CompletableFuture<Boolean> interruptible = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				started.countDown();
				try {
					other.lockInterruptibly();
					other.unlock();
					interruptible.complete(false);
				}
				catch (InterruptedException ex) {
					interruptible.complete(Thread.currentThread().isInterrupted());
				}
			});
			waiter.start();
			started.await();
			Thread.sleep(200);
			waiter.interrupt();
			// with the flag cleared, as Lock specifies (it was set again before issue 24)
			assertThat(interruptible.get(20, TimeUnit.SECONDS)).as("interrupted, with the flag set").isFalse();

			AtomicBoolean flagAfterLock = new AtomicBoolean();
			CountDownLatch locked = new CountDownLatch(1);
			Thread uninterruptible = new Thread(() -> {
				other.lock();
				flagAfterLock.set(Thread.currentThread().isInterrupted());
				other.unlock();
				locked.countDown();
			});
			uninterruptible.start();
			Thread.sleep(200);
			uninterruptible.interrupt();
			Thread.sleep(200);
			assertThat(locked.getCount()).as("lock() goes on waiting").isEqualTo(1);
			lock.unlock();
			assertThat(locked.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(flagAfterLock).as("and restores the interrupt").isTrue();
		}
		finally {
			if (((FencedLock) lock).isHeldByCurrentThread()) {
				lock.unlock();
			}
		}
	}

	@Test
	void badArgumentsAreRefusedWithTheirNames() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RedlockLockRegistry(null))
			.withMessageContaining("registry must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> new RedlockLockRegistry(redlock, Duration.ZERO))
			.withMessageContaining("ttl must be positive");
		assertThatIllegalArgumentException().isThrownBy(() -> new RedlockLockRegistry(redlock, Duration.ofMinutes(5)))
			.withMessageContaining("above the registry's maximum TTL")
			.withMessageContaining("redlock.max-ttl");
		assertThat(new RedlockLockRegistry(redlock).getTtl()).isEqualTo(redlock.settings().defaultTtl());
	}

	private static <T> T inAnotherThread(CheckedSupplier<T> action) throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return action.get();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, otherThreads).get(30, TimeUnit.SECONDS);
	}

	@FunctionalInterface
	interface CheckedSupplier<T> {

		T get() throws Exception;

	}

}
