package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A key's line hands the turn from one waiter to the next without growing the stack
 * (issue 23, items 2 and 3). When every node answers at once (here all three are down,
 * long enough that none is expected back), each waiter's attempt fails on the stack that
 * woke it, and its end hands the turn to the next waiter.
 * <p>
 * Before the fix the hand-off ran the next waiter's attempt on the same stack, so the
 * 1,000 blocking waiters here recursed on the releasing thread: a
 * {@code StackOverflowError}, swallowed by a {@code CompletableFuture}, left a waiter
 * "attempting" with no timer. This test failed then with {@code [waiters decided; line:
 * waiters [1] (0 queued, 1 attempting, 2 sleeping), holders 0, hinted false] expected:
 * 1000L but was: 999L}, and that waiter's untimed {@code get()} never returned (item 3).
 * With the bound of item 3 alone, that waiter failed after 58 s with "Lock 'hand-off' was
 * not acquired: the acquisition was not decided within 58s ..." instead of hanging, and
 * the test failed on that message. (Asynchronous waiters did not show it: their callers'
 * completion runs on another thread, which cut the recursion short.)
 */
class LineHandOffIntegrationTests {

	private static final int WAITERS = 1000;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
		fleet.fleet().heal();
	}

	@Test
	void aThousandWaitersFailingAtOnceAllHearTheirOutcomeAndTheLineMovesOn() throws Exception {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.releaseHints(false)
			.nodeTimeout(Duration.ofSeconds(1))
			.connectTimeout(Duration.ofSeconds(10))
			.build()
			.start();
		this.registries.add(registry);
		Lease held = registry.acquire("hand-off", Duration.ofSeconds(30), Duration.ofSeconds(30));
		// blocking callers, each on a thread of its own (a small stack: the waiting
		// threads only wait), standing in line behind the lease
		List<CompletableFuture<Throwable>> waiters = new ArrayList<>();
		for (int i = 0; i < WAITERS; i++) {
			CompletableFuture<Throwable> outcome = new CompletableFuture<>();
			Thread thread = new Thread(null, () -> {
				try {
					registry.acquire("hand-off", Duration.ofSeconds(10), Duration.ofSeconds(40)).release();
					outcome.complete(null);
				}
				catch (Throwable ex) {
					outcome.complete(ex);
				}
			}, "waiter-" + i, 128 * 1024);
			thread.setDaemon(true);
			thread.start();
			waiters.add(outcome);
		}
		await().atMost(Duration.ofSeconds(60)).until(() -> registry.parts().waiting().waiters() == WAITERS);
		for (int i = 0; i < 3; i++) {
			fleet.node(i).kill();
		}
		// down for longer than a reconnect takes: no node is expected back, so each
		// attempt fails at once and gives up
		await().atMost(Duration.ofSeconds(30))
			.until(() -> !registry.parts().fleet.quorumPossibleBy(0, System.nanoTime() + TimeUnit.MINUTES.toNanos(1)));
		held.release(); // wakes the head of the line, on this thread
		// each waiter's wait time is 40 s: all are decided by then, one way or another
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < until && !waiters.stream().allMatch(CompletableFuture::isDone)) {
			Thread.sleep(200);
		}
		long decided = waiters.stream().filter(CompletableFuture::isDone).count();
		assertThat(decided).as("waiters decided; line: " + registry.parts().waiting().describe("hand-off"))
			.isEqualTo(WAITERS);
		for (CompletableFuture<Throwable> waiter : waiters) {
			assertThat(waiter.get()).isInstanceOf(LockAcquisitionException.class)
				.hasMessageContaining("fewer nodes than a quorum are usable");
		}
		assertThat(registry.parts().waiting().waiters()).as(registry.parts().waiting().describe("hand-off")).isZero();
		// the key is not stuck behind a waiter that never ends
		fleet.fleet().heal();
		await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 3);
		Lease next = registry.acquire("hand-off", Duration.ofSeconds(10), Duration.ofSeconds(30));
		assertThat(next.isHeld()).isTrue();
		next.release();
	}

}
