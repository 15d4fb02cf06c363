package io.github.redlock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's provider contract, case by case, against real nodes: every test of
 * ShedLock's {@code AbstractLockProviderIntegrationTest},
 * {@code AbstractExtensibleLockProviderIntegrationTest} and {@code FuzzTester} (its
 * unpublished {@code shedlock-test-support} module), named as there, then what redlock
 * adds: {@code lockAtMostFor} and {@code lockAtLeastFor} above the maximum TTL (1s here,
 * so that ShedLock's durations all go through the watchdog), a lost quorum, a minority of
 * nodes down, and the lock name as the registry key.
 * <p>
 * Where ShedLock's tests use durations below what a quorum can grant (50ms and 2ms, under
 * three node timeouts), these use the shortest the registry accepts.
 */
class RedlockLockProviderIntegrationTests {

	private static final Duration MAX_TTL = Duration.ofSeconds(1);

	private static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final String lockName = UUID.randomUUID().toString();

	private final RedlockRegistry registry = registry();

	/** Another process's registry over the same nodes. */
	private final RedlockRegistry otherRegistry = registry();

	private final RedlockLockProvider provider = new RedlockLockProvider(this.registry);

	private static RedlockRegistry registry() {
		return RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.defaultTtl(MAX_TTL)
			.maxTtl(MAX_TTL)
			.build()
			.start();
	}

	@AfterEach
	void close() {
		this.registry.close();
		this.otherRegistry.close();
	}

	// AbstractLockProviderIntegrationTest

	@Test
	void shouldCreateLock() {
		Optional<SimpleLock> lock = this.provider.lock(lockConfig(this.lockName));
		assertThat(lock).isNotEmpty();
		assertLocked(this.lockName);
		lock.get().unlock();
		assertUnlocked(this.lockName);
	}

	@Test
	void shouldNotReturnSecondLock() throws Exception {
		Optional<SimpleLock> lock = this.provider.lock(lockConfig(this.lockName));
		assertThat(lock).isNotEmpty();
		// from the same thread: not reentrant, unlike the registry's blocking calls
		assertThat(this.provider.lock(lockConfig(this.lockName))).isEmpty();
		// from another thread, and from another process
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			assertThat(executor.submit(() -> this.provider.lock(lockConfig(this.lockName))).get()).isEmpty();
		}
		finally {
			executor.shutdown();
		}
		assertThat(new RedlockLockProvider(this.otherRegistry).lock(lockConfig(this.lockName))).isEmpty();
		lock.get().unlock();
	}

	@Test
	void shouldCreateTwoIndependentLocks() {
		Optional<SimpleLock> lock1 = this.provider.lock(lockConfig(this.lockName));
		assertThat(lock1).isNotEmpty();
		Optional<SimpleLock> lock2 = this.provider.lock(lockConfig(this.lockName + "-2"));
		assertThat(lock2).isNotEmpty();
		lock1.get().unlock();
		lock2.get().unlock();
	}

	@Test
	void shouldLockTwiceInARow() {
		Optional<SimpleLock> lock1 = this.provider.lock(lockConfig(this.lockName));
		assertThat(lock1).isNotEmpty();
		lock1.get().unlock();
		Optional<SimpleLock> lock2 = this.provider.lock(lockConfig(this.lockName));
		assertThat(lock2).isNotEmpty();
		lock2.get().unlock();
	}

	@Test
	void shouldTimeout() throws Exception {
		Duration lockAtMostFor = Duration.ofMillis(500);
		Optional<SimpleLock> lock1 = this.provider.lock(lockConfig(this.lockName, lockAtMostFor, Duration.ZERO));
		assertThat(lock1).isNotEmpty();
		Thread.sleep(lockAtMostFor.toMillis() * 2); // past lockAtMostFor, as ShedLock's
		assertUnlocked(this.lockName);
		Optional<SimpleLock> lock2 = this.provider.lock(lockConfig(this.lockName, lockAtMostFor, Duration.ZERO));
		assertThat(lock2).isNotEmpty();
		lock2.get().unlock();
	}

	@Test
	void shouldBeAbleToLockRightAfterUnlock() {
		for (int i = 0; i < 10; i++) {
			Optional<SimpleLock> lock = this.provider.lock(lockConfig(this.lockName));
			assertThat(lock).describedAs("Successfully locked " + i).isNotEmpty();
			assertThat(this.provider.lock(lockConfig(this.lockName))).isEmpty();
			lock.get().unlock();
		}
	}

	@Test
	void fuzzTestShouldPass() throws Exception {
		// FuzzTester: threads increment unguarded counters under the lock of their job;
		// a lost update or two holders at once shows a lock that let two in
		// (node timeouts long enough that a machine loaded by 8 spinning threads does
		// not turn contention into failed quorums)
		int threads = 8;
		int iterations = 10;
		int shortIteration = 5;
		Job job1 = new Job("fuzz-1-" + this.lockName);
		Job job2 = new Job("fuzz-2-" + this.lockName);
		RedlockRegistry fuzzRegistry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.nodeTimeout(Duration.ofMillis(300))
			.defaultTtl(Duration.ofSeconds(3))
			.maxTtl(Duration.ofSeconds(3))
			.build()
			.start();
		LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new RedlockLockProvider(fuzzRegistry));
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		long start = System.nanoTime();
		try {
			List<Future<?>> tasks = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				Job job = (i % 2 == 0) ? job1 : job2;
				int count = (i == 0) ? shortIteration : iterations;
				tasks.add(pool.submit(() -> {
					for (int done = 0; done < count;) {
						boolean[] ran = new boolean[1];
						executor.executeWithLock((Runnable) () -> {
							ran[0] = true;
							job.increment();
						}, job.configuration());
						if (ran[0]) {
							done++;
						}
						else {
							Thread.sleep(5); // ShedLock's tester spins; this spares the
												// nodes
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
			fuzzRegistry.close();
		}
		System.out.printf("ShedLock fuzz: %d locked runs on 2 locks from %d threads in %d ms%n",
				job1.counter + job2.counter, threads, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
		assertThat(job1.overlaps.get() + job2.overlaps.get()).as("runs that overlapped another of their job").isZero();
		assertThat(job2.counter).isEqualTo(threads / 2 * iterations);
		assertThat(job1.counter).isEqualTo((threads / 2 - 1) * iterations + shortIteration);
	}

	@Test
	void shouldLockAtLeastFor() throws Exception {
		// lockAtLeastFor above the maximum TTL: the watchdog keeps it after unlock()
		Optional<SimpleLock> lock1 = this.provider
			.lock(lockConfig(this.lockName, LOCK_AT_LEAST_FOR.multipliedBy(2), LOCK_AT_LEAST_FOR));
		assertThat(lock1).describedAs("Should be locked").isNotEmpty();
		long until = System.nanoTime() + LOCK_AT_LEAST_FOR.toNanos();
		lock1.get().unlock();
		assertThat(this.provider.lock(lockConfig(this.lockName)))
			.describedAs("Can not acquire lock, grace period did not pass yet")
			.isEmpty();
		Thread.sleep(MAX_TTL.toMillis() + 300); // past one maximum TTL, still held
		assertThat(this.provider.lock(lockConfig(this.lockName))).isEmpty();
		SimpleLock lock3 = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.provider.lock(lockConfig(this.lockName)).orElse(null), (lock) -> lock != null);
		assertThat(System.nanoTime()).as("acquired again after lockAtLeastFor").isGreaterThanOrEqualTo(until);
		lock3.unlock();
	}

	// AbstractExtensibleLockProviderIntegrationTest

	@Test
	void shouldBeAbleToExtendLock() throws Exception {
		SimpleLock lock = lock(Duration.ofMillis(1200));
		SimpleLock newLock = extendLock(lock, Duration.ZERO);
		Thread.sleep(1200); // wait for the original lockAtMostFor to pass
		assertLocked(this.lockName);
		newLock.unlock();
		assertUnlocked(this.lockName);
	}

	@Test
	void shouldBeAbleToExtendMultipleTimes() throws Exception {
		SimpleLock lock = lock(Duration.ofMillis(1200));
		SimpleLock newLock = extendLock(extendLock(extendLock(lock, Duration.ZERO), Duration.ZERO), Duration.ZERO);
		Thread.sleep(1200); // wait for the original lockAtMostFor to pass
		assertLocked(this.lockName);
		newLock.unlock();
		assertUnlocked(this.lockName);
	}

	@Test
	void shouldNotBeAbleToExtendUnlockedLock() {
		SimpleLock lock = lock(Duration.ofMillis(1200));
		lock.unlock();
		assertUnlocked(this.lockName);
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO));
	}

	@Test
	void shouldNotBeAbleToExtendExpiredLock() {
		Optional<SimpleLock> lock = this.provider
			.lock(lockConfig(this.lockName, Duration.ofMillis(400), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.registry.inspect(this.lockName).isHeldAnywhere());
		assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
		assertUnlocked(this.lockName);
	}

	@Test
	void shouldBeAbleToExtendAtLeast() {
		SimpleLock lock = lock(Duration.ofSeconds(10));
		SimpleLock newLock = extendLock(lock, Duration.ofSeconds(9));
		newLock.unlock();
		assertLocked(this.lockName);
	}

	@Test
	void lockCanNotBeExtendedTwice() {
		SimpleLock lock = lock(Duration.ofSeconds(10));
		extendLock(lock, Duration.ofSeconds(9));
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)));
	}

	@Test
	void lockCanNotBeUnlockedAfterExtending() {
		SimpleLock lock = lock(Duration.ofSeconds(10));
		extendLock(lock, Duration.ofSeconds(9));
		assertThatIllegalStateException().isThrownBy(lock::unlock);
	}

	// beyond ShedLock's own cases

	@Test
	void lockAtMostForAboveTheMaximumTtlIsKeptByTheWatchdogAndNoLonger() throws Exception {
		Duration lockAtMostFor = Duration.ofMillis(2500);
		long end = System.nanoTime() + lockAtMostFor.toNanos();
		assertThat(this.provider.lock(lockConfig(this.lockName, lockAtMostFor, Duration.ZERO))).isNotEmpty();
		Thread.sleep(lockAtMostFor.toMillis() - 700); // past two maximum TTLs: held on
		assertLocked(this.lockName);
		assertThat(this.provider.lock(lockConfig(this.lockName))).isEmpty();
		// never beyond: it expires on the nodes at lockAtMostFor, with no unlock()
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.registry.inspect(this.lockName).isHeldAnywhere());
		assertThat(System.nanoTime()).isGreaterThanOrEqualTo(end);
		this.provider.lock(lockConfig(this.lockName)).orElseThrow().unlock();
	}

	@Test
	void aLockWhoseQuorumIsLostIsLostAndCannotBeExtended() throws Exception {
		SimpleLock lock = lock(Duration.ofSeconds(30));
		fleet.node(0).kill();
		fleet.node(1).kill();
		// ShedLock cannot see it: the registry logs a warning naming the lock, which
		// is lost once the watchdog cannot extend it on a quorum
		await().atMost(Duration.ofSeconds(10)).until(() -> this.registry.heldLeases() == 0);
		assertThat(lock.extend(Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
	}

	@Test
	void anUnlockAfterTheQuorumIsLostDoesNotThrow() {
		SimpleLock lock = lock(Duration.ofSeconds(30));
		fleet.node(0).kill();
		fleet.node(1).kill();
		lock.unlock();
	}

	@Test
	void noQuorumThrowsRatherThanSayingTheLockIsHeld() {
		fleet.node(0).kill();
		fleet.node(1).kill();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.provider.lock(lockConfig(this.lockName)))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LockAcquisitionException.Reason.NO_QUORUM));
	}

	@Test
	void aMinorityOfNodesDownChangesNothing() throws Exception {
		fleet.node(2).kill();
		SimpleLock lock = lock(Duration.ofSeconds(30));
		assertThat(this.provider.lock(lockConfig(this.lockName))).isEmpty();
		SimpleLock extended = extendLock(lock, Duration.ZERO);
		extended.unlock();
		this.provider.lock(lockConfig(this.lockName)).orElseThrow().unlock();
	}

	@Test
	void theLockNameIsTheRegistryKey() throws Exception {
		SimpleLock lock = lock(Duration.ofSeconds(30));
		assertThat(this.otherRegistry.tryAcquire(this.lockName, MAX_TTL)).isEmpty();
		lock.unlock();
		try (Lease lease = this.registry.acquire(this.lockName, MAX_TTL, Duration.ZERO)) {
			// held through the registry's blocking API on this very thread: ShedLock
			// still gets nothing
			assertThat(this.provider.lock(lockConfig(this.lockName))).isEmpty();
		}
	}

	@Test
	void aLockAtMostForTooShortForAQuorumIsRefusedWithTheFix() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.provider.lock(lockConfig(this.lockName, Duration.ofMillis(50), Duration.ZERO)))
			.withMessageContaining("lockAtMostFor")
			.withMessageContaining(this.lockName)
			.withMessageContaining("raise lockAtMostFor");
	}

	@Test
	void aLockAtMostForPastTheMaximumHoldIsRefusedWithTheFix() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.provider.lock(lockConfig(this.lockName, Duration.ofHours(2), Duration.ZERO)))
			.withMessageContaining("lockAtMostFor")
			.withMessageContaining("redlock.max-hold");
		assertUnlocked(this.lockName);
	}

	private SimpleLock lock(Duration lockAtMostFor) {
		Optional<SimpleLock> lock = this.provider.lock(lockConfig(this.lockName, lockAtMostFor, Duration.ZERO));
		assertThat(lock).isNotEmpty();
		assertLocked(this.lockName);
		return lock.get();
	}

	private static SimpleLock extendLock(SimpleLock lock, Duration lockAtLeastFor) {
		Optional<SimpleLock> newLock = lock.extend(Duration.ofSeconds(10), lockAtLeastFor);
		assertThat(newLock).isNotEmpty();
		return newLock.get();
	}

	/** Held by one acquisition on a quorum of nodes. */
	private void assertLocked(String name) {
		assertThat(this.registry.inspect(name).holder()).as("holder of %s", name).isPresent();
	}

	/** Free on every node. */
	private void assertUnlocked(String name) {
		assertThat(this.registry.inspect(name).isHeldAnywhere()).as("%s held anywhere", name).isFalse();
	}

	private static LockConfiguration lockConfig(String name) {
		return lockConfig(name, Duration.ofMinutes(5), Duration.ZERO);
	}

	private static LockConfiguration lockConfig(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	/**
	 * A job of the fuzz test: an unguarded counter, read, paused and written back, as
	 * ShedLock's, and a count of runs that found another run of the job inside.
	 */
	private static final class Job {

		private final String name;

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger overlaps = new AtomicInteger();

		private int counter;

		Job(String name) {
			this.name = name;
		}

		LockConfiguration configuration() {
			return new LockConfiguration(ClockProvider.now(), this.name, Duration.ofMinutes(5), Duration.ofMillis(5));
		}

		void increment() {
			if (this.inside.incrementAndGet() != 1) {
				this.overlaps.incrementAndGet();
			}
			int n = this.counter;
			try {
				Thread.sleep(1); // as ShedLock's: lets another holder in if the lock
									// fails
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.counter = n + 1;
			this.inside.decrementAndGet();
		}

	}

}
