package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A lock shorter than three node timeouts is held for the TTL asked for (issue 39), with
 * the default settings (node timeout 100 ms): the per-node timeout of its calls follows
 * its TTL, and only a TTL that no timeout can serve (no longer than the clock drift
 * allowed for) is refused.
 * <p>
 * Before the fix, a TTL under 300 ms was refused: {@code acquire("short", 50ms, 0)} threw
 * "ttl 50ms is too short: it must be at least 3 times the node timeout (100ms) so that a
 * lock can be valid after waiting for the nodes; raise the ttl or lower the node
 * timeout", and {@code acquire("short", 1ms, 0)} threw the same for 1ms.
 */
class ShortTtlIntegrationTests {

	private static final String KEY = "short";

	private static final String NODE_KEY = "redlock:lock:{" + KEY + "}";

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry registry() {
		return this.registries.start(TestRegistries.builder(fleet));
	}

	@Test
	void aFiftyMillisecondLockLivesFiftyMillisecondsOnTheNodes() throws Exception {
		RedlockRegistry registry = registry();
		Lease lease = registry.acquire(KEY, Duration.ofMillis(50), Duration.ofSeconds(5));
		List<Long> pttls = pttls();
		boolean heldWhileRead = lease.isHeld();
		assertThat(lease.remainingValidity()).isLessThan(Duration.ofMillis(50));
		// every node that took it set 50 ms (one where it expired already says -2)
		assertThat(pttls).allSatisfy((pttl) -> assertThat(pttl).isLessThanOrEqualTo(50));
		if (heldWhileRead) {
			// valid after the reads: a quorum held it throughout them
			assertThat(pttls.stream().filter((pttl) -> pttl > 0).count()).isGreaterThanOrEqualTo(3);
		}
		// gone by itself, long before the 300 ms it was rounded up to once
		await().atMost(Duration.ofSeconds(1))
			.until(() -> NodeKeys.lockValues(fleet, KEY).stream().allMatch((v) -> v == null));
		assertThat(lease.isHeld()).isFalse();
		Optional<Lease> next = registry.tryAcquire(KEY, Duration.ofSeconds(10));
		assertThat(next).isPresent();
		next.get().release();
	}

	@Test
	void aFiftyMillisecondLeaseIsExtendedByFiftyMilliseconds() throws Exception {
		RedlockRegistry registry = registry();
		try (Lease lease = registry.acquire(KEY, Duration.ofSeconds(10), Duration.ofSeconds(5))) {
			assertThat(lease.extend(Duration.ofMillis(50))).isTrue();
			assertThat(pttls()).allSatisfy((pttl) -> assertThat(pttl).isLessThanOrEqualTo(50));
		}
	}

	@Test
	void aTtlNoLongerThanTheDriftIsRefusedWithTheReason() {
		RedlockRegistry registry = registry();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.acquire(KEY, Duration.ofMillis(1), Duration.ZERO))
			.withMessageContaining("ttl 1ms")
			.withMessageContaining("clock drift")
			.withMessageContaining("at least 3ms");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.tryAcquire(KEY, Duration.ofMillis(2)))
			.withMessageContaining("ttl 2ms");
	}

	/** Returns the key's PTTL on every node, in ms: -2 where it is gone. */
	private static List<Long> pttls() {
		return fleet.fleet().nodes().stream().map((node) -> (Long) node.call("PTTL", NODE_KEY)).toList();
	}

}
