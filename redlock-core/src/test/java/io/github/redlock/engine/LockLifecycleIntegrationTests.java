package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.NodeFailure;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * An exclusive lock over five nodes from acquisition to its end: exclusive while held,
 * refused with the reason, extended by hand or by the watchdog, freed by expiry, release
 * or the registry's close, and checked arguments and keys.
 */
class LockLifecycleIntegrationTests {

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
	void lockIsExclusiveUntilReleased() throws Exception {
		RedlockRegistry first = registry();
		RedlockRegistry second = registry();
		Lease lease = first.acquire("order:1", Duration.ofSeconds(10), Duration.ZERO);
		assertThat(lease.isHeld()).isTrue();
		assertThat(lease.key()).isEqualTo("order:1");
		assertThat(lease.remainingValidity()).isPositive().isLessThan(Duration.ofSeconds(10));
		assertThat(second.tryAcquire("order:1", Duration.ofSeconds(10))).isEmpty();
		lease.release();
		assertThat(lease.isHeld()).isFalse();
		awaitGoneFromEveryNode("order:1");
		Optional<Lease> next = second.tryAcquire("order:1", Duration.ofSeconds(10));
		assertThat(next).isPresent();
		assertThat(next.get().fencingToken()).isGreaterThan(lease.fencingToken());
		next.get().close();
	}

	@Test
	void lockValueCarriesTheOwnerIdentity() throws Exception {
		try (Lease lease = registry().acquire("who", Duration.ofSeconds(10), Duration.ZERO)) {
			String value = (String) NodeKeys.lockValues(fleet, "who")
				.stream()
				.filter((v) -> v != null)
				.findFirst()
				.orElseThrow();
			String[] parts = value.split(":", 4);
			assertThat(parts[0]).hasSize(27); // 20 random bytes, base64url
			assertThat(parts[2]).isEqualTo(String.valueOf(ProcessHandle.current().pid()));
			assertThat(parts[3]).isEqualTo(Thread.currentThread().getName());
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void refusedAcquisitionSaysTheLockIsHeld() throws Exception {
		RedlockRegistry holder = registry();
		try (Lease lease = holder.acquire("busy", Duration.ofSeconds(10), Duration.ZERO)) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> registry().acquire("busy", Duration.ofSeconds(10), Duration.ofMillis(300)))
				.withMessageContaining("Could not acquire lock 'busy' within 300ms")
				.withMessageContaining("0 of 5 nodes agreed, 3 needed")
				.withMessageContaining("already held (by another owner for")
				.satisfies((ex) -> assertThat(ex.getFailures()).hasSize(5)
					.allMatch((failure) -> failure.kind() == NodeFailure.Kind.HELD));
		}
	}

	@Test
	void expiryFreesTheLock() throws Exception {
		RedlockRegistry first = registry();
		Lease lease = first.acquire("expiring", Duration.ofMillis(800), Duration.ZERO);
		CountDownLatch lost = new CountDownLatch(1);
		lease.addListener((expired, cause) -> lost.countDown());
		RedlockRegistry second = registry();
		try (Lease next = second.acquire("expiring", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
			assertThat(next.isHeld()).isTrue();
			assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
			assertThat(lease.isHeld()).isFalse();
			assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void releaseByAFormerOwnerLeavesTheNewOwnersLockAlone() throws Exception {
		RedlockRegistry first = registry();
		Lease stale = first.acquire("handover", Duration.ofMillis(800), Duration.ZERO);
		RedlockRegistry second = registry();
		try (Lease current = second.acquire("handover", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
			// a quorum at least: a waiter now tries as the holder's time runs out, and a
			// node whose copy outlived the others' by a millisecond answered "held" and
			// never gets the new value (the fresh-clone CI run found one such node)
			// (until it expires there: then only the new owner's value is left)
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				List<Object> values = NodeKeys.lockValues(fleet, "handover");
				return values.stream().filter((value) -> value != null).count() >= 3
						&& values.stream().filter((value) -> value != null).distinct().count() == 1;
			});
			List<Object> before = NodeKeys.lockValues(fleet, "handover");
			stale.release();
			assertThat(NodeKeys.lockValues(fleet, "handover")).isEqualTo(before);
			assertThat(current.isHeld()).isTrue();
			assertThat(first.tryAcquire("handover", Duration.ofSeconds(10))).isEmpty();
		}
	}

	@Test
	void extendKeepsTheLockAndFailsAfterExpiry() throws Exception {
		RedlockRegistry registry = registry();
		Lease lease = registry.acquire("extend", Duration.ofSeconds(1), Duration.ZERO);
		assertThat(lease.extend(Duration.ofSeconds(10))).isTrue();
		assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(5));
		// extended on at least a quorum
		assertThat(fleet.fleet().nodes()).filteredOn((node) -> (Long) node.call("PTTL", "redlock:lock:{extend}") > 5000)
			.hasSizeGreaterThanOrEqualTo(3);
		lease.release();

		Lease shortLived = registry.acquire("extend", Duration.ofMillis(800), Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> !shortLived.isHeld());
		assertThat(shortLived.extend(Duration.ofSeconds(10))).isFalse();
		awaitGoneFromEveryNode("extend");
	}

	@Test
	void watchdogKeepsTheLockThroughThreeTimesItsTtl() throws Exception {
		RedlockRegistry registry = registry();
		RedlockRegistry other = registry();
		Duration ttl = Duration.ofSeconds(1);
		String result = registry.executeLocked("long-job", ttl, Duration.ZERO, () -> {
			long end = System.nanoTime() + ttl.multipliedBy(3).toNanos();
			while (System.nanoTime() < end) {
				assertThat(other.tryAcquire("long-job", ttl)).isEmpty();
				Thread.sleep(200); // holding the lock for a stated time
			}
			return "done";
		});
		assertThat(result).isEqualTo("done");
		awaitGoneFromEveryNode("long-job");
	}

	@Test
	void actionExceptionPropagatesAndTheLockIsReleased() {
		RedlockRegistry registry = registry();
		assertThatIllegalStateException()
			.isThrownBy(() -> registry.executeLocked("failing", Duration.ofSeconds(5), Duration.ZERO, () -> {
				throw new IllegalStateException("boom");
			}))
			.withMessage("boom");
		awaitGoneFromEveryNode("failing");
	}

	@Test
	void closedRegistryRefusesNewLocksAndReleasesHeldOnes() throws Exception {
		RedlockRegistry registry = registry();
		Lease lease = registry.acquire("closing", Duration.ofSeconds(10), Duration.ZERO);
		registry.close();
		assertThat(lease.isHeld()).isFalse();
		assertThat(NodeKeys.lockValues(fleet, "closing")).containsOnlyNulls();
		assertThatIllegalStateException().isThrownBy(() -> registry.acquire("closing")).withMessageContaining("closed");
	}

	@Test
	void badArgumentsAreRefusedWithTheirName() {
		RedlockRegistry registry = registry();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire(null)).withMessageContaining("null");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("")).withMessageContaining("empty");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("x", Duration.ZERO, Duration.ZERO))
			.withMessageContaining("ttl must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.acquire("x", Duration.ofMillis(1), Duration.ZERO))
			.withMessageContaining("ttl 1ms is too short");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.acquire("x", Duration.ofSeconds(1), Duration.ofSeconds(-1)))
			.withMessageContaining("waitTime");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.acquire("x", Duration.ofMinutes(2), Duration.ZERO))
			.withMessageContaining("above the maximum TTL 1m");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("x".repeat(2000)))
			.withMessageContaining("2000 characters");
		assertThat(registry.heldLeases()).isZero();
	}

	@Test
	void nonAsciiKeysWork() throws Exception {
		try (Lease lease = registry().acquire("заказ:注文:🔒", Duration.ofSeconds(5), Duration.ZERO)) {
			assertThat(lease.isHeld()).isTrue();
			// a quorum holds it when acquire returns; the others may land a moment later
			assertThat(NodeKeys.lockValues(fleet, "заказ:注文:🔒")).filteredOn((value) -> value != null)
				.hasSizeGreaterThanOrEqualTo(3);
		}
	}

	/**
	 * Waits until no node holds the key: {@code release()} returns once a quorum is free,
	 * and the other nodes' deletions land within a node timeout, later on a loaded
	 * machine (checked at once, these checks failed so under load).
	 */
	private static void awaitGoneFromEveryNode(String key) {
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(NodeKeys.lockValues(fleet, key)).containsOnlyNulls());
	}

}
