package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.waiting.WaitingLine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock handed over between callers of one registry asks the nodes for no release hints
 * (issue 23, item 6): the waiter is woken by the registry itself, so subscribing to the
 * key's channel on every node is useless. Each hand-over here is followed by a pause
 * longer than the hints' one-second linger, as between jobs.
 * <p>
 * Before the fix the woken waiter was still marked sleeping when the hints were updated,
 * so each hand-over subscribed on every node and unsubscribed a second later: this test
 * failed with "[SUBSCRIBE calls on the 3 nodes] Expecting actual: 15L to be equal to: 0L"
 * (the figure is printed).
 */
class HandOverHintsIntegrationTests {

	private static final int HAND_OVERS = 5;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
	}

	@Test
	void aLockHandedOverWithinOneRegistrySubscribesNowhere() throws Exception {
		this.registry = TestRegistries.builder(fleet)
			.releaseHints(true)
			.nodeTimeout(Duration.ofMillis(500))
			.connectTimeout(Duration.ofSeconds(10))
			.build()
			.start();
		long before = subscribes();
		Lease held = this.registry.acquire("hand-over", Duration.ofSeconds(10), Duration.ofSeconds(10));
		for (int i = 0; i < HAND_OVERS; i++) {
			CompletableFuture<Lease> next = this.registry.acquireAsync("hand-over", Duration.ofSeconds(10),
					Duration.ofSeconds(30));
			await().atMost(Duration.ofSeconds(20)).until(() -> this.registry.parts().waiting().waiters() == 1);
			held.release();
			held = next.get(20, TimeUnit.SECONDS);
			Thread.sleep(1500); // longer than the hints linger: the work between
								// hand-overs
		}
		held.release();
		long subscribes = subscribes() - before;
		System.out.printf("%d hand-overs within one registry: %d SUBSCRIBE calls on the 3 nodes%n", HAND_OVERS,
				subscribes);
		assertThat(subscribes).as("SUBSCRIBE calls on the 3 nodes").isZero();
	}

	/**
	 * The same for a semaphore whose permits this registry holds, all of them: only its
	 * own release can free one. Once permits had release hints (issue 28), each waiter
	 * here subscribed on every node: "[SUBSCRIBE calls on the 3 nodes] Expecting actual:
	 * 15L to be equal to: 0L".
	 */
	@Test
	void aPermitHandedOverWithinOneRegistrySubscribesNowhere() throws Exception {
		this.registry = TestRegistries.builder(fleet)
			.releaseHints(true)
			.nodeTimeout(Duration.ofMillis(500))
			.connectTimeout(Duration.ofSeconds(10))
			.build()
			.start();
		LockSemaphore semaphore = this.registry.semaphore("hand-over-permit", 1);
		long before = subscribes();
		Lease held = semaphore.acquire(Duration.ofSeconds(10), Duration.ofSeconds(10));
		for (int i = 0; i < HAND_OVERS; i++) {
			CompletableFuture<Lease> next = semaphore.acquireAsync(Duration.ofSeconds(10), Duration.ofSeconds(30));
			// refused once, and asleep until this registry's release
			await().atMost(Duration.ofSeconds(20))
				.until(() -> WaitingLine.of(this.registry.parts().permitLines, "hand-over-permit")
					.waitersAre(WaitingLine.Phase.SLEEPING));
			held.release();
			held = next.get(20, TimeUnit.SECONDS);
			Thread.sleep(1500); // longer than the hints linger
		}
		held.release();
		long subscribes = subscribes() - before;
		System.out.printf("%d permit hand-overs within one registry: %d SUBSCRIBE calls on the 3 nodes%n", HAND_OVERS,
				subscribes);
		assertThat(subscribes).as("SUBSCRIBE calls on the 3 nodes").isZero();
	}

	private static long subscribes() {
		long total = 0;
		for (int i = 0; i < 3; i++) {
			total += NodeStats.calls(fleet.node(i), "subscribe");
		}
		return total;
	}

}
