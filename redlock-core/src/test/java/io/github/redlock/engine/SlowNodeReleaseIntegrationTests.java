package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release with one node paused: it returns once every node answered or timed out (the
 * paused one after its 2 s node timeout), so that no node holds the key when it returns
 * on a healthy fleet; the key's next waiter in the registry takes the lock as soon as a
 * quorum deleted it, without waiting for the slow node; and the paused node's deletion
 * lands when it resumes, also on a node that restarted just before and learnt the scripts
 * on the reconnect. With the line woken only once every node answered (broken on
 * purpose), the release returned first and the first test failed.
 */
class SlowNodeReleaseIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@Test
	void theNextWaiterTakesTheLockOnceAQuorumDeletedItWhileTheReleaseWaitsForTheSlowNode() throws Exception {
		try (RedlockRegistry registry = registry()) {
			Lease lease = registry.acquire("slow-release", Duration.ofMinutes(1), Duration.ofSeconds(5));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fleet.node(2).call("GET", "redlock:lock:slow-release") != null);
			CompletableFuture<Lease> waiter = registry.acquireAsync("slow-release", Duration.ofMinutes(1),
					Duration.ofMinutes(1));
			fleet.node(2).pause();
			try {
				CompletableFuture<Boolean> waiterFirst = new CompletableFuture<>();
				CompletableFuture<Void> released = CompletableFuture.runAsync(() -> {
					lease.release();
					waiterFirst.complete(waiter.isDone());
				});
				assertThat(waiter.get(30, TimeUnit.SECONDS).isHeld()).isTrue();
				// the release still waits for the paused node's timeout
				assertThat(waiterFirst.get(30, TimeUnit.SECONDS)).as("the waiter held the lock first").isTrue();
				released.get(30, TimeUnit.SECONDS);
				waiter.get().release();
			}
			finally {
				fleet.node(2).resume();
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fleet.node(2).call("GET", "redlock:lock:slow-release") == null);
		}
	}

	@Test
	void aReleaseThatTimesOutOnANodeThatRestartedStillDeletesThereWhenItResumes() throws Exception {
		// before the change the node answered NOSCRIPT once resumed, after the release
		// had timed out and could no longer send the script's text: the key stayed there
		// for its minute
		try (RedlockRegistry registry = registry()) {
			registry.acquire("before-restart", Duration.ofMinutes(1), Duration.ofSeconds(5)).release();
			fleet.node(2).restart(false);
			await().atMost(Duration.ofSeconds(30)).until(() -> registry.checkNodes().get(2).usable());
			Lease lease = registry.acquire("after-restart", Duration.ofMinutes(1), Duration.ofSeconds(5));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fleet.node(2).call("GET", "redlock:lock:after-restart") != null);
			fleet.node(2).pause();
			try {
				lease.release();
			}
			finally {
				fleet.node(2).resume();
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fleet.node(2).call("GET", "redlock:lock:after-restart") == null);
		}
	}

	/**
	 * A registry whose node timeout (2 s) a paused node runs into well within the tests'
	 * waits, and whose leases may last a minute.
	 */
	private static RedlockRegistry registry() {
		return RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.nodeTimeout(Duration.ofSeconds(2))
			.maxTtl(Duration.ofMinutes(1))
			.build()
			.start();
	}

}
