package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The maximum hold time ({@code RedlockRegistry.Builder#maxHold}, "the longest a lease
 * may be held through extensions, counted from its acquisition"; docs/internals.md,
 * Watchdog): an auto-extended lease is extended until then and no longer, and is then
 * reported lost as any lease the watchdog cannot keep: {@code isHeld()} turns false,
 * listeners hear it, and {@code executeLocked} throws {@code LockLostException} when the
 * action returns.
 * <p>
 * A 1 s TTL under a 3 s maximum hold: a lease that lives past twice its TTL was extended,
 * so the cut seen is the maximum hold's and not the first TTL running out.
 */
class MaxHoldIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(1);

	private static final Duration MAX_HOLD = Duration.ofSeconds(3);

	/**
	 * How much later than the maximum hold a node may expire the key: the last
	 * extension's trip, and the time between this test's clock reading and the
	 * acquisition's own; still half the TTL that one more extension would have set.
	 */
	private static final long TRIP_MILLIS = 500;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final CompletableFuture<String> lostEvent = new CompletableFuture<>();

	private final RedlockRegistry registry = TestRegistries.builder(fleet)
		.defaultTtl(TTL)
		.maxTtl(TTL)
		.maxHold(MAX_HOLD)
		.listener(new RegistryListener() {
			@Override
			public void lost(String key, Duration held) {
				MaxHoldIntegrationTests.this.lostEvent.complete(key);
			}
		})
		.build()
		.start();

	private final RedlockRegistry other = TestRegistries.builder(fleet).defaultTtl(TTL).maxTtl(TTL).build().start();

	@AfterEach
	void close() {
		this.registry.close();
		this.other.close();
	}

	@Test
	void anAutoExtendedLeaseIsCutAtTheMaximumHoldAndReportedLost() throws Exception {
		long start = System.nanoTime(); // before the acquisition: the hold counts from it
		Lease lease = this.registry.acquire("cut", TTL, Duration.ofSeconds(5), true);
		CompletableFuture<LockLostException> lost = new CompletableFuture<>();
		lease.addListener((gone, cause) -> lost.complete(cause));
		LockLostException cause = lost.get(20, TimeUnit.SECONDS);
		Duration heldFor = Duration.ofNanos(System.nanoTime() - start);
		// names the setting to raise, as the refusal of a too long holdFor does
		assertThat(cause).hasMessageContaining("'cut'")
			.hasMessageContaining("maximum hold time")
			.hasMessageContaining("redlock.max-hold");
		// without the watchdog's extensions it would have been lost after one TTL
		assertThat(heldFor).as("time from acquisition to the loss").isGreaterThan(TTL.multipliedBy(2));
		assertThat(lease.isHeld()).isFalse();
		assertThat(lease.remainingValidity()).isZero();
		assertThat(this.lostEvent.get(10, TimeUnit.SECONDS)).isEqualTo("cut");
		// no extension set the key to outlive the maximum hold on the nodes
		assertExpiresBy("cut", start + MAX_HOLD.toNanos());
		Lease next = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.tryAcquire("cut", TTL).orElse(null), (held) -> held != null);
		assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
		next.release();
		lease.release(); // lost already: only clean-up, which must not throw
	}

	@Test
	void executeLockedThrowsLockLostExceptionWhenAnActionOutlivesTheMaximumHold() {
		long start = System.nanoTime();
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.registry.executeLocked("cut-action", TTL, Duration.ofSeconds(5), () -> {
				// runs until the registry reported the loss (then its reason is set) and
				// the lock is gone from every node: no fixed sleep
				assertThat(this.lostEvent.get(20, TimeUnit.SECONDS)).isEqualTo("cut-action");
				await().atMost(Duration.ofSeconds(10)).until(() -> lockedOn("cut-action") == 0);
				return "done";
			}))
			.withMessageContaining("'cut-action'")
			.withMessageContaining("maximum hold time");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(TTL.multipliedBy(2));
		assertThat(this.registry.heldLeases()).isZero();
	}

	private static int lockedOn(String key) {
		int count = 0;
		for (RedisNode node : fleet.fleet().nodes()) {
			if (node.call("GET", "redlock:lock:{" + key + "}") != null) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Asserts that a quorum of the nodes expire the key by {@code end} (plus a request's
	 * trip), or have expired it already.
	 */
	private static void assertExpiresBy(String key, long end) {
		List<String> seen = new ArrayList<>();
		int byTheEnd = 0;
		for (RedisNode node : fleet.fleet().nodes()) {
			long left = Duration.ofNanos(end - System.nanoTime()).toMillis();
			long pttl = (Long) node.call("PTTL", "redlock:lock:{" + key + "}");
			seen.add(node + ": PTTL " + pttl + "ms, " + left + "ms before the end");
			if (pttl == -2 || (pttl >= 0 && pttl <= left + TRIP_MILLIS)) { // -1: no
																			// expiry at
																			// all
				byTheEnd++;
			}
		}
		assertThat(byTheEnd).as("nodes that expire the key by the maximum hold: %s", seen).isGreaterThanOrEqualTo(2);
	}

}
