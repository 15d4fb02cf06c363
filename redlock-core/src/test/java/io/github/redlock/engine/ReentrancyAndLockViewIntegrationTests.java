package io.github.redlock.engine;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Reentrancy on the thread that holds a lock, and none for another thread of the same
 * registry; the {@link java.util.concurrent.locks.Lock} view's reentrant lock, watchdog
 * and timed {@code tryLock}.
 */
class ReentrancyAndLockViewIntegrationTests {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(250);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry registry() {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(NODE_TIMEOUT)
			.defaultTtl(Duration.ofSeconds(10))
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void nestedAcquisitionOnTheSameThreadIsReentrantWithoutARoundTrip() throws Exception {
		RedlockRegistry registry = registry();
		RedlockRegistry other = registry();
		Lease outer = registry.acquire("nested", Duration.ofSeconds(10), Duration.ZERO);
		fleet.node(0).pause();
		fleet.node(1).pause();
		fleet.node(2).pause();
		// no quorum could answer now: the nested acquisition must not need one
		Lease inner = registry.acquire("nested", Duration.ofSeconds(10), Duration.ZERO);
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		inner.release();
		fleet.node(0).resume();
		fleet.node(1).resume();
		fleet.node(2).resume();
		assertThat(outer.isHeld()).isTrue();
		assertThat(other.tryAcquire("nested", Duration.ofSeconds(10))).isEmpty();
		outer.release();
		assertThat(other.tryAcquire("nested", Duration.ofSeconds(10))).hasValueSatisfying(Lease::release);
	}

	@Test
	void anotherThreadOfTheSameRegistryDoesNotReenter() throws Exception {
		RedlockRegistry registry = registry();
		try (Lease lease = registry.acquire("threads", Duration.ofSeconds(10), Duration.ZERO)) {
			Optional<Lease> fromOtherThread = CompletableFuture
				.supplyAsync(() -> registry.tryAcquire("threads", Duration.ofSeconds(10)))
				.get(10, TimeUnit.SECONDS);
			assertThat(fromOtherThread).isEmpty();
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void lockViewIsReentrantAndExtendedUntilUnlocked() throws Exception {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.nodeTimeout(NODE_TIMEOUT)
			.defaultTtl(Duration.ofSeconds(3))
			.build();
		this.registries.add(registry);
		RedlockRegistry other = registry();
		Lock lock = registry.obtain("view");
		lock.lock();
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		Thread.sleep(4000); // longer than the TTL: the watchdog keeps it
		assertThat(other.tryAcquire("view", Duration.ofSeconds(5))).isEmpty();
		lock.unlock();
		assertThat(other.tryAcquire("view", Duration.ofSeconds(5))).hasValueSatisfying(Lease::release);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::newCondition);
	}

	@Test
	void lockViewTryLockWithTimeoutWaitsForTheHolder() throws Exception {
		RedlockRegistry registry = registry();
		RedlockRegistry other = registry();
		Lease held = other.acquire("view-wait", Duration.ofMillis(900), Duration.ZERO);
		Lock lock = registry.obtain("view-wait");
		assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
		assertThat(held.isHeld()).isFalse();
		lock.unlock();
	}

}
