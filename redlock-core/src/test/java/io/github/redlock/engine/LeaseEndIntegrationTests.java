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
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A lease given an end ({@link Lease#holdFor}, {@link Lease#releaseAfter}, issue 14): the
 * lock stays held until that end, also past the maximum TTL (1s here, kept by the
 * watchdog a maximum TTL at a time), and expires on the nodes at the end, never later; a
 * nested hold's delay changes nothing; closing the registry leaves a released lock to
 * expire rather than deleting it.
 */
class LeaseEndIntegrationTests {

	private static final Duration MAX_TTL = Duration.ofSeconds(1);

	/** How much later than asked a node may expire a key: the request's trip. */
	private static final long TRIP_MILLIS = 250;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final RedlockRegistry registry = registry();

	private final RedlockRegistry other = registry();

	private static RedlockRegistry registry() {
		return TestRegistries.builder(fleet).defaultTtl(MAX_TTL).maxTtl(MAX_TTL).build().start();
	}

	@AfterEach
	void close() {
		this.registry.close();
		this.other.close();
	}

	@Test
	void holdForAboveTheMaximumTtlKeepsTheLockUntilItsEndAndNoLonger() throws Exception {
		Lease lease = this.registry.acquire("hold-long", MAX_TTL, Duration.ZERO);
		long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
		assertThat(lease.holdFor(Duration.ofMillis(2500))).isTrue();
		// past two maximum TTLs: only the watchdog can have kept it
		sleepUntil(end - Duration.ofMillis(600).toNanos());
		assertThat(this.other.tryAcquire("hold-long", MAX_TTL)).isEmpty();
		assertThat(lease.isHeld()).isTrue();
		// the last extension made it expire at the end on every node
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertExpiresBy("hold-long", end));
		Lease next = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.tryAcquire("hold-long", MAX_TTL).orElse(null), (held) -> held != null);
		assertThat(System.nanoTime()).isGreaterThanOrEqualTo(end);
		assertThat(lease.isHeld()).isFalse();
		next.release();
	}

	@Test
	void holdForShorterThanTheTtlShortensTheLockOnTheNodes() throws Exception {
		Lease lease = this.registry.acquire("hold-short", MAX_TTL, Duration.ZERO);
		assertThat(lease.holdFor(Duration.ofMillis(300))).isTrue();
		// taken after the call, so later than the lease's own: a bound however long the
		// call took on a loaded machine
		long end = System.nanoTime() + Duration.ofMillis(300).toNanos();
		assertExpiresBy("hold-short", end);
		await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isHeld());
	}

	/**
	 * {@code Lease#holdFor}: "When the moment comes, isHeld() turns false quietly: the
	 * end was asked for, so listeners are not told of a loss." The registry's listener
	 * hears a release, never a loss, and the lease's listener hears nothing: a lease ends
	 * once, so once the release was told no loss can follow.
	 */
	@Test
	void aHoldThatReachesItsEndEndsQuietlyWithoutTellingListenersOfALoss() throws Exception {
		CompletableFuture<String> released = new CompletableFuture<>();
		CompletableFuture<String> lostEvent = new CompletableFuture<>();
		try (RedlockRegistry quiet = TestRegistries.builder(fleet)
			.defaultTtl(MAX_TTL)
			.maxTtl(MAX_TTL)
			.listener(new RegistryListener() {
				@Override
				public void released(String key, Duration held) {
					released.complete(key);
				}

				@Override
				public void lost(String key, Duration held) {
					lostEvent.complete(key);
				}
			})
			.build()
			.start()) {
			// auto-extended too: the end asked for wins over the watchdog's demand
			Lease lease = quiet.acquire("hold-quiet", MAX_TTL, Duration.ZERO, true);
			CompletableFuture<LockLostException> lost = new CompletableFuture<>();
			lease.addListener((held, cause) -> lost.complete(cause));
			assertThat(lease.holdFor(Duration.ofMillis(1500))).isTrue();
			assertThat(released.get(10, TimeUnit.SECONDS)).isEqualTo("hold-quiet");
			assertThat(lease.isHeld()).isFalse();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.other.tryAcquire("hold-quiet", MAX_TTL).orElse(null), (held) -> held != null)
				.release();
			assertThat(lost).as("the lease's listener").isNotDone();
			assertThat(lostEvent).as("the registry's lost event").isNotDone();
		}
	}

	/**
	 * {@code Lease#holdFor}: "The lease can still be released earlier, and a later call
	 * moves the end again." Past the first end the lock is still held (the second end is
	 * 20 s away, far from any delay), then the release frees it long before the second.
	 */
	@Test
	void aLaterHoldForMovesTheEndAndTheLeaseCanStillBeReleasedEarlier() throws Exception {
		Lease lease = this.registry.acquire("hold-moved", MAX_TTL, Duration.ZERO);
		assertThat(lease.holdFor(Duration.ofMillis(400))).isTrue();
		long firstEnd = System.nanoTime() + Duration.ofMillis(400).toNanos(); // after: a
																				// bound
		assertThat(lease.holdFor(Duration.ofSeconds(20))).isTrue();
		// past the first end (and past the 1 s TTL): only the moved end keeps it
		sleepUntil(firstEnd + MAX_TTL.toNanos());
		assertThat(lease.isHeld()).isTrue();
		assertThat(this.other.tryAcquire("hold-moved", MAX_TTL)).isEmpty();
		lease.release();
		assertThat(lease.isHeld()).isFalse();
		this.other.tryAcquire("hold-moved", MAX_TTL).orElseThrow().release();
	}

	@Test
	void holdForPastTheMaximumHoldTimeIsRefused() throws Exception {
		try (Lease lease = this.registry.acquire("hold-too-long", MAX_TTL, Duration.ZERO)) {
			assertThatIllegalArgumentException().isThrownBy(() -> lease.holdFor(Duration.ofHours(2)))
				.withMessageContaining("maximum hold time")
				.withMessageContaining("redlock.max-hold");
		}
	}

	@Test
	void aLeaseHeldForLongerLosesItsLockWhenTheQuorumIsLost() throws Exception {
		Lease lease = this.registry.acquire("hold-lost", MAX_TTL, Duration.ZERO);
		CompletableFuture<LockLostException> lost = new CompletableFuture<>();
		lease.addListener((held, cause) -> lost.complete(cause));
		assertThat(lease.holdFor(Duration.ofSeconds(30))).isTrue();
		fleet.node(0).kill();
		fleet.node(1).kill();
		assertThat(lost.get(10, TimeUnit.SECONDS).getMessage()).contains("hold-lost");
		assertThat(lease.isHeld()).isFalse();
	}

	@Test
	void releaseAfterKeepsTheLockUntilTheDelayThenFreesIt() throws Exception {
		Lease lease = this.registry.acquire("linger", MAX_TTL, Duration.ZERO);
		lease.releaseAfter(Duration.ofMillis(400));
		long end = System.nanoTime() + Duration.ofMillis(400).toNanos(); // after: a bound
		assertThat(lease.isHeld()).isFalse();
		assertThat(this.registry.heldLeases()).isZero();
		assertExpiresBy("linger", end);
		assertThat(this.other.tryAcquire("linger", MAX_TTL)).isEmpty();
		lease.release(); // released already: does not cut the delay short
		assertThat(this.other.tryAcquire("linger", MAX_TTL)).isEmpty();
		Lease next = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.tryAcquire("linger", MAX_TTL).orElse(null), (held) -> held != null);
		assertThat(System.nanoTime()).isGreaterThanOrEqualTo(end);
		next.release();
	}

	/**
	 * Issue 23: an end that has come by the time its extension is built deletes the lock
	 * on the nodes. Failed before: {@code releaseAfter} with a delay that was all but
	 * spent when the extension went out sent nothing ("it reached its end"), and the key
	 * kept the TTL of its last extension, a maximum TTL (60 s by default) on every node:
	 * ShedLock's {@code lockAtLeastFor} of 5 ms kept each released lock for a minute.
	 * With a 1 ms delay the end is always under a millisecond away once the extension is
	 * built, so this is not a matter of timing.
	 */
	@Test
	void releaseAfterWhoseEndHasComeDeletesTheLockOnTheNodes() throws Exception {
		try (RedlockRegistry defaults = TestRegistries.builder(fleet).build()) {
			defaults.start();
			Lease lease = defaults.acquire("linger-spent", Duration.ofSeconds(60), Duration.ZERO);
			lease.releaseAfter(Duration.ofMillis(1));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				for (RedisNode node : fleet.fleet().nodes()) {
					assertThat(node.call("PTTL", "redlock:lock:{linger-spent}")).as("PTTL on %s", node).isEqualTo(-2L);
				}
			});
			assertThat(this.other.tryAcquire("linger-spent", MAX_TTL)).isPresent().get().satisfies(Lease::release);
			assertThat(defaults.heldLeases()).isZero();
		}
	}

	/**
	 * Issue 23, as {@link #releaseAfterWhoseEndHasComeDeletesTheLockOnTheNodes()} for
	 * {@code holdFor}: an end under a millisecond away ends the hold and deletes the lock
	 * rather than leaving it a maximum TTL. Failed before: the key kept its 60 s TTL.
	 */
	@Test
	void holdForWhoseEndHasComeDeletesTheLockOnTheNodes() throws Exception {
		try (RedlockRegistry defaults = TestRegistries.builder(fleet).build()) {
			defaults.start();
			Lease lease = defaults.acquire("hold-spent", Duration.ofSeconds(60), Duration.ZERO);
			lease.holdFor(Duration.ofMillis(1));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				for (RedisNode node : fleet.fleet().nodes()) {
					assertThat(node.call("PTTL", "redlock:lock:{hold-spent}")).as("PTTL on %s", node).isEqualTo(-2L);
				}
			});
			assertThat(lease.isHeld()).isFalse();
			assertThat(this.other.tryAcquire("hold-spent", MAX_TTL)).isPresent().get().satisfies(Lease::release);
		}
	}

	@Test
	void releaseAfterAboveTheMaximumTtlIsKeptByTheWatchdog() throws Exception {
		Lease lease = this.registry.acquire("linger-long", MAX_TTL, Duration.ZERO);
		long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
		lease.releaseAfter(Duration.ofMillis(2500));
		sleepUntil(end - Duration.ofMillis(600).toNanos());
		assertThat(this.other.tryAcquire("linger-long", MAX_TTL)).isEmpty();
		Lease next = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.tryAcquire("linger-long", MAX_TTL).orElse(null), (held) -> held != null);
		assertThat(System.nanoTime()).isGreaterThanOrEqualTo(end);
		next.release();
	}

	@Test
	void releaseAfterWithNoDelayReleasesAtOnce() throws Exception {
		this.registry.acquire("linger-none", MAX_TTL, Duration.ZERO).releaseAfter(Duration.ZERO);
		Lease next = this.other.tryAcquire("linger-none", MAX_TTL).orElseThrow();
		next.release();
	}

	@Test
	void aNestedHoldsDelayChangesNothing() throws Exception {
		Lease outer = this.registry.acquire("linger-nested", MAX_TTL, Duration.ZERO);
		Lease inner = this.registry.acquire("linger-nested", MAX_TTL, Duration.ZERO);
		inner.releaseAfter(Duration.ofSeconds(30));
		assertThat(outer.isHeld()).isTrue();
		outer.release();
		this.other.tryAcquire("linger-nested", MAX_TTL).orElseThrow().release();
	}

	@Test
	void theOutermostHoldsDelayKeepsTheLock() throws Exception {
		Lease outer = this.registry.acquire("linger-outer", MAX_TTL, Duration.ZERO);
		Lease inner = this.registry.acquire("linger-outer", MAX_TTL, Duration.ZERO);
		inner.release();
		outer.releaseAfter(Duration.ofMillis(700));
		assertThat(this.other.tryAcquire("linger-outer", MAX_TTL)).isEmpty();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.tryAcquire("linger-outer", MAX_TTL).orElse(null), (held) -> held != null)
			.release();
	}

	@Test
	void closingTheRegistryLeavesAReleasedLockToExpire() throws Exception {
		Lease lease = this.registry.acquire("linger-close", MAX_TTL, Duration.ZERO);
		lease.releaseAfter(Duration.ofMillis(800));
		this.registry.close();
		assertThat(this.other.tryAcquire("linger-close", MAX_TTL)).isEmpty();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.tryAcquire("linger-close", MAX_TTL).orElse(null), (held) -> held != null)
			.release();
	}

	/**
	 * Asserts that every running node expires the lock no later than {@code end} (plus a
	 * request's trip).
	 */
	/**
	 * Asserts that a quorum of the nodes expire the key by {@code end}: the lease's end
	 * is decided once a quorum set it, and the third node's may still be on its way (a
	 * loaded machine once showed it so, the old TTL still on it).
	 */
	private static void assertExpiresBy(String key, long end) {
		List<String> seen = new ArrayList<>();
		int byTheEnd = 0;
		for (RedisNode node : fleet.fleet().nodes()) {
			if (!node.isRunning()) {
				continue;
			}
			long left = Duration.ofNanos(end - System.nanoTime()).toMillis();
			long pttl = (Long) node.call("PTTL", "redlock:lock:{" + key + "}");
			seen.add(node + ": PTTL " + pttl + "ms, " + left + "ms before the end");
			if (pttl <= left + TRIP_MILLIS) {
				byTheEnd++;
			}
		}
		assertThat(byTheEnd).as("nodes that expire the key by the end: %s", seen).isGreaterThanOrEqualTo(2);
	}

	private static void sleepUntil(long nanoTime) throws InterruptedException {
		long left = nanoTime - System.nanoTime();
		if (left > 0) {
			Thread.sleep(TimeUnit.NANOSECONDS.toMillis(left)); // holding for a stated
																// time
		}
	}

}
