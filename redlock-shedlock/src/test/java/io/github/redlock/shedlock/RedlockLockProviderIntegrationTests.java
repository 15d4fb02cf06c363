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

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * What the redlock provider adds to ShedLock's contract (which
 * {@link RedlockLockProviderContractIntegrationTests} checks at ShedLock's numbers),
 * against real nodes: {@code lockAtMostFor} and {@code lockAtLeastFor} above the maximum
 * TTL (1s here, so that they go through the watchdog), a short {@code lockAtMostFor} or
 * one above the maximum hold, a lost quorum, a minority of nodes down, and the lock name
 * as the registry key.
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

	@Test
	void aHeldLockIsRefusedToThisThreadToOtherThreadsAndToOtherProcesses() throws Exception {
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
	void lockAtLeastForAboveTheMaximumTtlIsKeptByTheWatchdogAfterUnlock() throws Exception {
		// lockAtLeastFor counts from the configuration's time, taken before lock(): so
		// must the bound (taken after lock() returned, it was later than the end by the
		// acquisition's round trip, 9 ms under load), less 2 ms for ShedLock's clock,
		// which truncates to the millisecond
		long until = System.nanoTime() + LOCK_AT_LEAST_FOR.minusMillis(2).toNanos();
		Optional<SimpleLock> lock1 = this.provider
			.lock(lockConfig(this.lockName, LOCK_AT_LEAST_FOR.multipliedBy(2), LOCK_AT_LEAST_FOR));
		assertThat(lock1).describedAs("Should be locked").isNotEmpty();
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

	// ShedLock's
	// AbstractExtensibleLockProviderIntegrationTest.shouldNotBeAbleToExtendExpiredLock
	// with a lockAtMostFor of 50 ms (its 2 ms is refused: no lock of it can be valid):
	// once that has run out, the lock cannot be extended
	@Test
	void shouldNotBeAbleToExtendExpiredLock() {
		Optional<SimpleLock> lock = this.provider.lock(lockConfig(this.lockName, Duration.ofMillis(50), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.registry.inspect(this.lockName).isHeldAnywhere());
		assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
		assertUnlocked(this.lockName);
	}

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

	// Issue 39: a lockAtMostFor below three node timeouts is the lock's TTL as asked.
	// Failed before: the 50 ms lock was rounded up to 300 ms with a WARN ("asks for
	// lockAtMostFor 50ms, below the shortest TTL a quorum of redlock nodes can grant
	// (300ms, three times redlock.node-timeout)"): "[PTTL on node0@redis://...]
	// Expecting actual: 293L to be less than or equal to: 50L".
	@Test
	void aShortLockAtMostForIsTheLocksTtlAsAsked() throws Exception {
		try (ProviderLog log = new ProviderLog()) {
			SimpleLock lock = this.provider.lock(lockConfig(this.lockName, Duration.ofMillis(50), Duration.ZERO))
				.orElseThrow();
			for (RedisNode node : fleet.fleet().nodes()) {
				assertThat((Long) node.call("PTTL", "redlock:lock:{" + this.lockName + "}")).as("PTTL on %s", node)
					.isLessThanOrEqualTo(50);
			}
			// it expires by itself, long before the 300 ms it was rounded up to once
			await().atMost(Duration.ofSeconds(1)).until(() -> !this.registry.inspect(this.lockName).isHeldAnywhere());
			lock.unlock();
			assertThat(log.warnings()).isEmpty();
		}
	}

	// Issue 39: only a lockAtMostFor that no lock can be valid for (no longer than the
	// clock drift allowed for it) is refused, saying which and what to do.
	@Test
	void aLockAtMostForNoLockCanBeValidForIsRefusedWithTheFix() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.provider.lock(lockConfig(this.lockName, Duration.ofMillis(2), Duration.ZERO)))
			.withMessageContaining("ShedLock lock '" + this.lockName + "' with lockAtMostFor 2ms was refused")
			.withMessageContaining("clock drift")
			.withMessageContaining("raise lockAtMostFor");
		assertUnlocked(this.lockName);
	}

	// Issue 24: a lockAtMostFor above redlock.max-hold (a nightly job's 2h, known only
	// at run time) is cut to it, and said once per lock name. Failed before:
	// IllegalArgumentException at every tick.
	@Test
	void aLockAtMostForAboveTheMaximumHoldIsCutToItWithOneWarningPerName() throws Exception {
		RedlockRegistry shortHold = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.defaultTtl(MAX_TTL)
			.maxTtl(MAX_TTL)
			.maxHold(Duration.ofSeconds(3))
			.build()
			.start();
		try (ProviderLog log = new ProviderLog()) {
			RedlockLockProvider provider = new RedlockLockProvider(shortHold);
			long start = System.nanoTime();
			SimpleLock lock = provider.lock(lockConfig(this.lockName, Duration.ofHours(2), Duration.ZERO))
				.orElseThrow();
			assertThat(provider.lock(lockConfig(this.lockName, Duration.ofHours(2), Duration.ZERO))).isEmpty();
			assertThat(log.warnings()).singleElement()
				.asString()
				.contains(this.lockName, "lockAtMostFor 2h", "redlock.max-hold 3s", "Raise redlock.max-hold");
			// held past the maximum TTL by the watchdog, and it ends by itself near
			// the maximum hold rather than in two hours
			Thread.sleep(MAX_TTL.toMillis() + 500); // a stated time: past one maximum TTL
			assertLocked(this.lockName);
			await().atMost(Duration.ofSeconds(20)).until(() -> !this.registry.inspect(this.lockName).isHeldAnywhere());
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(2500));
			lock.unlock();
			provider.lock(lockConfig(this.lockName, Duration.ofHours(2), Duration.ZERO)).orElseThrow().unlock();
			assertThat(log.warnings()).hasSize(1);
		}
		finally {
			shortHold.close();
		}
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
	 * Captures the provider's warnings while open.
	 */
	private static final class ProviderLog implements AutoCloseable {

		private final Logger logger = (Logger) LoggerFactory.getLogger(RedlockLockProvider.class);

		private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

		ProviderLog() {
			this.appender.start();
			this.logger.addAppender(this.appender);
		}

		List<String> warnings() {
			// copied under the appender's lock (logback's AppenderBase appends under it):
			// other threads may still log
			List<ILoggingEvent> events;
			synchronized (this.appender) {
				events = new java.util.ArrayList<>(this.appender.list);
			}
			return events.stream()
				.filter((event) -> event.getLevel() == Level.WARN)
				.map(ILoggingEvent::getFormattedMessage)
				.toList();
		}

		@Override
		public void close() {
			this.logger.detachAppender(this.appender);
		}

	}

}
