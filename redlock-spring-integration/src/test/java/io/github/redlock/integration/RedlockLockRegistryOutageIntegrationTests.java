package io.github.redlock.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.CannotAcquireLockException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code tryLock} tells an outage from contention, as {@code RedisLockRegistry} does
 * (issue 41, item 4): {@code false} while another process holds the lock,
 * {@link CannotAcquireLockException} with the {@link LockAcquisitionException} as its
 * cause when too few nodes are usable. Before, it returned {@code false} for both
 * ("Expecting code to raise a throwable").
 */
class RedlockLockRegistryOutageIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private RedlockRegistry redlock;

	private RedlockRegistry otherProcess;

	@BeforeEach
	void startRegistries() {
		this.redlock = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
		this.otherProcess = RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).build().start();
	}

	@AfterEach
	void closeRegistries() {
		this.redlock.close();
		this.otherProcess.close();
	}

	@Test
	void tryLockIsFalseWhileHeldElsewhere() throws Exception {
		RedlockLockRegistry registry = new RedlockLockRegistry(this.redlock, Duration.ofSeconds(5));
		try (Lease held = this.otherProcess.acquire("busy", Duration.ofSeconds(10), Duration.ZERO)) {
			assertThat(registry.obtain("busy").tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
			assertThat(registry.obtain("busy").tryLock()).isFalse();
		}
	}

	@Test
	void tryLockThrowsWhenTooFewNodesAreUsableAndTheLockStaysFree() throws Exception {
		RedlockLockRegistry registry = new RedlockLockRegistry(this.redlock, Duration.ofSeconds(5));
		fleet.node(0).kill();
		fleet.node(1).kill();
		FencedLock lock = (FencedLock) registry.obtain("outage");
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS))
			.withCauseInstanceOf(LockAcquisitionException.class)
			.satisfies((ex) -> assertThat(((LockAcquisitionException) ex.getCause()).getReason())
				.isEqualTo(LockAcquisitionException.Reason.NO_QUORUM));
		assertThatExceptionOfType(CannotAcquireLockException.class).isThrownBy(lock::tryLock);
		// the local hold was given back
		assertThat(lock.isHeldByCurrentThread()).isFalse();
	}

}
