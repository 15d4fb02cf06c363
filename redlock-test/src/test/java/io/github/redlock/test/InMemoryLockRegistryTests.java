package io.github.redlock.test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockAcquisitionException.Reason;
import io.github.redlock.LockLostException;
import io.github.redlock.LockSemaphore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What the in-memory registry keeps of the quorum registry's contract beyond the
 * {@code Lock} view and the kinds: fencing tokens, reentrancy, TTLs, read-write rules and
 * semaphores.
 */
class InMemoryLockRegistryTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	private final InMemoryLockRegistry otherProcess = this.registry.anotherProcess();

	@AfterEach
	void close() {
		this.registry.close();
		this.otherProcess.close();
	}

	@Test
	void fencingTokensRiseForSuccessiveHoldersOfEveryKind() throws Exception {
		long previous = 0;
		for (int i = 0; i < 3; i++) {
			try (Lease exclusive = this.registry.acquire("fenced", TTL, Duration.ZERO)) {
				assertThat(exclusive.fencingToken()).isGreaterThan(previous);
				previous = exclusive.fencingToken();
			}
			try (Lease write = this.otherProcess.acquireWrite("fenced", TTL, Duration.ZERO)) {
				assertThat(write.fencingToken()).isGreaterThan(previous);
				previous = write.fencingToken();
			}
			try (Lease permit = this.registry.semaphore("fenced", 2).acquire(TTL, Duration.ZERO)) {
				assertThat(permit.fencingToken()).isGreaterThan(previous);
				previous = permit.fencingToken();
			}
		}
	}

	@Test
	void aNestedAcquisitionOnTheSameThreadKeepsTheOuterTokenAndTheOutermostReleaseFreesTheLock() throws Exception {
		Lease outer = this.registry.acquire("nested", TTL, Duration.ZERO);
		Lease inner = this.registry.acquire("nested", TTL, Duration.ZERO);
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		inner.release();
		assertThat(outer.isHeld()).isTrue();
		assertThat(this.otherProcess.tryAcquire("nested", TTL)).isEmpty();
		outer.release();
		assertThat(this.otherProcess.tryAcquire("nested", TTL)).hasValueSatisfying(Lease::release);
	}

	@Test
	void anotherThreadOfTheSameRegistryDoesNotReenter() throws Exception {
		try (Lease lease = this.registry.acquire("threads", TTL, Duration.ZERO)) {
			assertThat(CompletableFuture.supplyAsync(() -> this.registry.tryAcquire("threads", TTL))
				.get(10, TimeUnit.SECONDS)).isEmpty();
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void aLeaseNotExtendedEndsWithItsTtlAndItsListenersHearItWasLost() throws Exception {
		Lease lease = this.registry.acquire("expiring", Duration.ofMillis(200), Duration.ZERO);
		CompletableFuture<LockLostException> lost = new CompletableFuture<>();
		lease.addListener((held, cause) -> lost.complete(cause));
		await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isHeld());
		assertThat(lost.get(10, TimeUnit.SECONDS)).hasMessageContaining("'expiring' was lost");
		assertThat(this.otherProcess.tryAcquire("expiring", TTL)).hasValueSatisfying(Lease::release);
	}

	@Test
	void anExtendedLeaseOutlivesItsFirstTtl() throws Exception {
		Lease lease = this.registry.acquire("extended", Duration.ofMillis(300), Duration.ZERO);
		assertThat(lease.extend(TTL)).isTrue();
		Thread.sleep(600); // past the first TTL
		assertThat(lease.isHeld()).isTrue();
		assertThat(this.otherProcess.tryAcquire("extended", TTL)).isEmpty();
		lease.release();
		assertThat(lease.extend(TTL)).isFalse();
	}

	@Test
	void readersShareAndExcludeAWriterThatIsRefusedAsHeld() {
		Lease reader = this.registry.acquireRead("rw", TTL, Duration.ZERO);
		Lease otherReader = this.otherProcess.acquireRead("rw", TTL, Duration.ZERO);
		InMemoryLockRegistry writer = this.registry.anotherProcess();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> writer.acquireWrite("rw", TTL, Duration.ofMillis(100)))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.HELD));
		reader.release();
		otherReader.release();
		writer.acquireWrite("rw", TTL, Duration.ZERO).release();
		writer.close();
	}

	@Test
	void aReaderIsRefusedTheWriteLockAtOnceAndAWriterMayRead() {
		try (Lease reader = this.registry.acquireRead("upgrade", TTL, Duration.ZERO)) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> this.registry.acquireWrite("upgrade", TTL, Duration.ofSeconds(30)))
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.HELD_BY_THIS_THREAD));
		}
		try (Lease writer = this.registry.acquireWrite("downgrade", TTL, Duration.ZERO);
				Lease reader = this.registry.acquireRead("downgrade", TTL, Duration.ZERO)) {
			assertThat(reader.fencingToken()).isGreaterThan(writer.fencingToken());
		}
	}

	@Test
	void theExclusiveLockAndTheWriteLockOfAKeyExcludeEachOther() throws Exception {
		try (Lease exclusive = this.registry.acquire("both", TTL, Duration.ZERO)) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> this.otherProcess.acquireWrite("both", TTL, Duration.ZERO))
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.HELD));
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> this.registry.acquireWrite("both", TTL, Duration.ZERO))
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(Reason.HELD_BY_THIS_THREAD));
		}
	}

	@Test
	void aSemaphoreGrantsItsPermitsAndNoMore() {
		LockSemaphore semaphore = this.registry.semaphore("permits", 2);
		Lease first = semaphore.acquire(TTL, Duration.ZERO);
		Lease second = this.otherProcess.semaphore("permits", 2).acquire(TTL, Duration.ZERO);
		assertThat(semaphore.availablePermits()).isZero();
		assertThat(semaphore.tryAcquire(TTL)).isEmpty();
		first.release();
		assertThat(semaphore.availablePermits()).isOne();
		assertThat(semaphore.tryAcquire(TTL)).hasValueSatisfying(Lease::release);
		second.release();
	}

	@Test
	void executeLockedHoldsTheLockWhileTheActionRunsAndReleasesItAfter() throws Exception {
		String result = this.registry.executeLocked("work", Duration.ofMillis(300), Duration.ZERO, () -> {
			Thread.sleep(600); // past the TTL: the lease is kept extended
			assertThat(this.otherProcess.tryAcquire("work", TTL)).isEmpty();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(this.otherProcess.tryAcquire("work", TTL)).hasValueSatisfying(Lease::release);
	}

	@Test
	void inspectShowsTheHolderAndTheFencingCounter() throws Exception {
		try (Lease lease = this.registry.acquire("inspected", TTL, Duration.ZERO)) {
			assertThat(this.otherProcess.inspect("inspected").holder()).isPresent();
			assertThat(this.otherProcess.inspect("inspected").nodes().get(0).fencingCounter())
				.isEqualTo(lease.fencingToken());
		}
		assertThat(this.otherProcess.inspect("inspected").holder()).isEmpty();
	}

}
