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

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own provider contract at ShedLock's own numbers (issue 24): every case of
 * {@code AbstractLockProviderIntegrationTest},
 * {@code AbstractExtensibleLockProviderIntegrationTest} and {@code FuzzTester} from
 * ShedLock's {@code shedlock-test-support} (read at lukas-krecan/ShedLock 2495b1406),
 * written anew, each named as upstream, against three real redis-server nodes.
 * <p>
 * The provider is configured as a user gets it: {@code new RedlockLockProvider(registry)}
 * over a registry with the default settings (maximum TTL 60 s, node timeout 100 ms,
 * maximum hold 1 h). The one difference: the restart guard is off, because the nodes are
 * started by the test and a fresh node sits out of quorums for a maximum TTL under the
 * guard; it changes nothing once the nodes count.
 * <p>
 * One case keeps ShedLock's number and is disabled with the reason: its
 * {@code lockAtMostFor} of 2 ms is no longer than the clock drift allowed for it, so no
 * lock of it can be valid and the provider refuses it.
 * {@code RedlockLockProviderIntegrationTests} checks the refusal and the same case at 50
 * ms.
 */
class RedlockLockProviderContractIntegrationTests {

	/** ShedLock's {@code AbstractLockProviderIntegrationTest.LOCK_AT_LEAST_FOR}. */
	private static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(2);

	/** ShedLock's {@code AbstractExtensibleLockProviderIntegrationTest}'s. */
	private static final Duration ORIGINAL_LOCK_DURATION = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private static RedlockRegistry registry;

	private static RedlockLockProvider provider;

	private final String lockName1 = UUID.randomUUID().toString();

	@BeforeAll
	static void start() {
		registry = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
		// connected, as an application's registry is by the time its scheduled tasks
		// run: start() connects in the background
		await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 3);
		provider = new RedlockLockProvider(registry);
	}

	@AfterAll
	static void close() {
		registry.close();
	}

	// AbstractLockProviderIntegrationTest

	// follows AbstractLockProviderIntegrationTest.shouldCreateLock
	@Test
	void shouldCreateLock() {
		Optional<SimpleLock> lock = provider.lock(lockConfig(this.lockName1));
		assertThat(lock).isNotEmpty();
		assertLocked(this.lockName1);
		lock.get().unlock();
		assertUnlocked(this.lockName1);
	}

	// follows AbstractLockProviderIntegrationTest.shouldNotReturnSecondLock
	@Test
	void shouldNotReturnSecondLock() {
		Optional<SimpleLock> lock = provider.lock(lockConfig(this.lockName1));
		assertThat(lock).isNotEmpty();
		assertThat(provider.lock(lockConfig(this.lockName1))).isEmpty();
		lock.get().unlock();
	}

	// follows AbstractLockProviderIntegrationTest.shouldCreateTwoIndependentLocks
	@Test
	void shouldCreateTwoIndependentLocks() {
		Optional<SimpleLock> lock1 = provider.lock(lockConfig(this.lockName1));
		assertThat(lock1).isNotEmpty();
		Optional<SimpleLock> lock2 = provider.lock(lockConfig("name2"));
		assertThat(lock2).isNotEmpty();
		lock1.get().unlock();
		lock2.get().unlock();
	}

	// follows AbstractLockProviderIntegrationTest.shouldLockTwiceInARow
	@Test
	void shouldLockTwiceInARow() {
		Optional<SimpleLock> lock1 = provider.lock(lockConfig(this.lockName1));
		assertThat(lock1).isNotEmpty();
		lock1.get().unlock();
		Optional<SimpleLock> lock2 = provider.lock(lockConfig(this.lockName1));
		assertThat(lock2).isNotEmpty();
		lock2.get().unlock();
	}

	// follows AbstractLockProviderIntegrationTest.shouldTimeout (doTestTimeout(50 ms))
	@Test
	void shouldTimeout() throws InterruptedException {
		Duration lockAtMostFor = Duration.ofMillis(50);
		Optional<SimpleLock> lock1 = provider.lock(lockConfig(this.lockName1, lockAtMostFor, Duration.ZERO));
		assertThat(lock1).isNotEmpty();
		Thread.sleep(lockAtMostFor.toMillis() * 2); // ShedLock's: twice lockAtMostFor
		assertUnlocked(this.lockName1);
		Optional<SimpleLock> lock2 = provider.lock(lockConfig(this.lockName1, Duration.ofMillis(50), Duration.ZERO));
		assertThat(lock2).isNotEmpty();
		lock2.get().unlock();
	}

	// follows AbstractLockProviderIntegrationTest.shouldBeAbleToLockRightAfterUnlock
	@Test
	void shouldBeAbleToLockRightAfterUnlock() {
		LockConfiguration configuration = lockConfig(this.lockName1);
		for (int i = 0; i < 10; i++) {
			Optional<SimpleLock> lock = provider.lock(configuration);
			assertThat(lock).describedAs("Successfully locked " + i).isNotEmpty();
			assertThat(provider.lock(configuration)).isEmpty();
			lock.get().unlock();
		}
	}

	// follows AbstractLockProviderIntegrationTest.fuzzTestShouldPass, that is
	// FuzzTester(provider) with its defaults: 8 threads on 2 locks, 100 runs each (the
	// first thread 10), 1 ms in the critical section, lockAtMostFor 5 min,
	// lockAtLeastFor 5 ms, and a thread that did not get the lock trying again at once
	// (DefaultLockingTaskExecutor returns; the loop spins)
	@Test
	void fuzzTestShouldPass() throws Exception {
		int threads = 8;
		int iterations = 100;
		int shortIteration = 10;
		Job job1 = new Job("lock1-" + this.lockName1);
		Job job2 = new Job("lock2-" + this.lockName1);
		LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		long start = System.nanoTime();
		try {
			List<Future<?>> tasks = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				Job job = (i % 2 == 0) ? job1 : job2;
				int runs = (i == 0) ? shortIteration : iterations;
				tasks.add(pool.submit(() -> {
					AtomicInteger done = new AtomicInteger();
					while (done.get() < runs) {
						executor.executeWithLock((Runnable) () -> {
							job.increment();
							done.incrementAndGet();
						}, job.configuration());
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(5, TimeUnit.MINUTES); // a bound against a hang, not a timing
			}
		}
		finally {
			pool.shutdownNow();
		}
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		System.out.printf("ShedLock FuzzTester at its own numbers: %d runs on 2 locks from %d threads in %d ms%n",
				job1.counter + job2.counter, threads, millis);
		assertThat(job1.overlaps.get() + job2.overlaps.get()).as("runs that overlapped another of their job").isZero();
		assertThat(job2.counter).isEqualTo(threads / 2 * iterations);
		assertThat(job1.counter).isEqualTo((threads / 2 - 1) * iterations + shortIteration);
		Thread.sleep(job1.configuration().getLockAtLeastFor().toMillis()); // as upstream
	}

	// follows AbstractLockProviderIntegrationTest.shouldLockAtLeastFor
	// (doTestShouldLockAtLeastFor(100))
	@Test
	void shouldLockAtLeastFor() throws InterruptedException {
		int sleepForMs = 100;
		Optional<SimpleLock> lock1 = provider
			.lock(lockConfig(this.lockName1, LOCK_AT_LEAST_FOR.multipliedBy(2), LOCK_AT_LEAST_FOR));
		assertThat(lock1).describedAs("Should be locked").isNotEmpty();
		lock1.get().unlock();
		assertThat(provider.lock(lockConfig(this.lockName1)))
			.describedAs("Can not acquire lock, grace period did not pass yet")
			.isEmpty();
		Thread.sleep(LOCK_AT_LEAST_FOR.toMillis() + sleepForMs); // ShedLock's wait
		Optional<SimpleLock> lock3 = provider.lock(lockConfig(this.lockName1));
		assertThat(lock3).describedAs("Can acquire the lock after grace period").isNotEmpty();
		lock3.get().unlock();
	}

	// AbstractExtensibleLockProviderIntegrationTest

	// follows AbstractExtensibleLockProviderIntegrationTest.shouldBeAbleToExtendLock
	@Test
	void shouldBeAbleToExtendLock() throws InterruptedException {
		SimpleLock lock = lock(ORIGINAL_LOCK_DURATION);
		SimpleLock newLock = extendLock(lock, Duration.ZERO);
		Thread.sleep(ORIGINAL_LOCK_DURATION.toMillis()); // the original lockAtMostFor
		assertLocked(this.lockName1);
		newLock.unlock();
		assertUnlocked(this.lockName1);
	}

	// follows
	// AbstractExtensibleLockProviderIntegrationTest.shouldBeAbleToExtendMultipleTimes
	@Test
	void shouldBeAbleToExtendMultipleTimes() throws InterruptedException {
		SimpleLock lock = lock(ORIGINAL_LOCK_DURATION);
		SimpleLock newLock = extendLock(extendLock(extendLock(lock, Duration.ZERO), Duration.ZERO), Duration.ZERO);
		Thread.sleep(ORIGINAL_LOCK_DURATION.toMillis()); // the original lockAtMostFor
		assertLocked(this.lockName1);
		newLock.unlock();
		assertUnlocked(this.lockName1);
	}

	// follows
	// AbstractExtensibleLockProviderIntegrationTest.shouldNotBeAbleToExtendUnlockedLock
	@Test
	void shouldNotBeAbleToExtendUnlockedLock() {
		SimpleLock lock = lock(ORIGINAL_LOCK_DURATION);
		lock.unlock();
		assertUnlocked(this.lockName1);
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO));
	}

	// follows
	// AbstractExtensibleLockProviderIntegrationTest.shouldNotBeAbleToExtendExpiredLock
	@Test
	@Disabled("ShedLock's lockAtMostFor of 2 ms is no longer than the clock drift the Redlock validity allows for"
			+ " (2 ms + 1 % of the TTL = 2.02 ms): validity = ttl - elapsed - drift is negative before any node"
			+ " answers, so lock() refuses it with an IllegalArgumentException (the shortest TTL is 3 ms)."
			+ " RedlockLockProviderIntegrationTests.shouldNotBeAbleToExtendExpiredLock runs this case at 50 ms and"
			+ " .aLockAtMostForNoLockCanBeValidForIsRefusedWithTheFix checks the refusal")
	void shouldNotBeAbleToExtendExpiredLock() throws InterruptedException {
		Optional<SimpleLock> lock = provider.lock(lockConfig(this.lockName1, Duration.ofMillis(2), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Thread.sleep(4); // ShedLock's: twice lockAtMostFor
		assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
		assertUnlocked(this.lockName1);
	}

	// follows AbstractExtensibleLockProviderIntegrationTest.shouldBeAbleToExtendAtLeast
	@Test
	void shouldBeAbleToExtendAtLeast() {
		SimpleLock lock = lock(Duration.ofSeconds(10));
		SimpleLock newLock = extendLock(lock, Duration.ofSeconds(9));
		newLock.unlock();
		assertLocked(this.lockName1);
	}

	// follows AbstractExtensibleLockProviderIntegrationTest.lockCanNotBeExtendedTwice
	@Test
	void lockCanNotBeExtendedTwice() {
		SimpleLock lock = lock(Duration.ofSeconds(10));
		extendLock(lock, Duration.ofSeconds(9));
		assertThatIllegalStateException().isThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)));
	}

	// follows
	// AbstractExtensibleLockProviderIntegrationTest.lockCanNotBeUnlockedAfterExtending
	@Test
	void lockCanNotBeUnlockedAfterExtending() {
		SimpleLock lock = lock(Duration.ofSeconds(10));
		extendLock(lock, Duration.ofSeconds(9));
		assertThatIllegalStateException().isThrownBy(lock::unlock);
	}

	private SimpleLock lock(Duration lockAtMostFor) {
		Optional<SimpleLock> lock = provider.lock(lockConfig(this.lockName1, lockAtMostFor, Duration.ZERO));
		assertThat(lock).isNotEmpty();
		assertLocked(this.lockName1);
		return lock.get();
	}

	private static SimpleLock extendLock(SimpleLock lock, Duration lockAtLeastFor) {
		Optional<SimpleLock> newLock = lock.extend(Duration.ofSeconds(10), lockAtLeastFor);
		assertThat(newLock).isNotEmpty();
		return newLock.get();
	}

	/** Held by one acquisition on a quorum of the nodes. */
	private static void assertLocked(String name) {
		assertThat(registry.inspect(name).holder()).as("holder of %s", name).isPresent();
	}

	/** Free on every node. */
	private static void assertUnlocked(String name) {
		assertThat(registry.inspect(name).isHeldAnywhere()).as("%s held anywhere", name).isFalse();
	}

	/** ShedLock's {@code lockConfig(name)}: at most 5 minutes, at least nothing. */
	private static LockConfiguration lockConfig(String name) {
		return lockConfig(name, Duration.ofMinutes(5), Duration.ZERO);
	}

	private static LockConfiguration lockConfig(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	/**
	 * A job of FuzzTester: an unguarded counter, read, held 1 ms and written back, so
	 * that a lock that lets two runs in loses an update; and a count of runs that found
	 * another run of the job inside.
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
				Thread.sleep(1); // FuzzTester's sleepFor
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.counter = n + 1;
			this.inside.decrementAndGet();
		}

	}

}
