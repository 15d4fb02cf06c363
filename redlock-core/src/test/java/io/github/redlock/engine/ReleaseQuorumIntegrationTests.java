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
 * A release returns once a quorum of nodes deleted the lock (issue 15): a slow node no
 * longer holds up the caller until the node timeout, and its deletion still lands when it
 * answers. Before, {@code release()} waited for every node, here the 20 s node timeout of
 * the paused node, and the first assertion failed.
 */
class ReleaseQuorumIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	/** A slow node's timeout of 20 s, far above any wait of this test. */
	private static RedlockRegistry registry() {
		return RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.nodeTimeout(Duration.ofSeconds(20))
			.maxTtl(Duration.ofMinutes(5))
			.defaultTtl(Duration.ofMinutes(5))
			.build()
			.start();
	}

	@Test
	void aReleaseReturnsOnceAQuorumDeletedTheLockAndTheSlowNodeDeletesItLater() throws Exception {
		try (RedlockRegistry registry = registry(); RedlockRegistry other = registry()) {
			Lease lease = registry.acquire("slow-release", Duration.ofMinutes(5), Duration.ofSeconds(5));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fleet.node(2).call("GET", "redlock:lock:slow-release") != null);
			fleet.node(2).pause();
			try {
				CompletableFuture<Void> released = CompletableFuture.runAsync(lease::release);
				// well under the paused node's 20 s timeout, however loaded the machine
				released.get(10, TimeUnit.SECONDS);
				assertThat(fleet.node(0).call("GET", "redlock:lock:slow-release")).isNull();
				assertThat(fleet.node(1).call("GET", "redlock:lock:slow-release")).isNull();
				// free for anyone: a quorum is free of it
				other.tryAcquire("slow-release", Duration.ofMinutes(1)).orElseThrow().release();
			}
			finally {
				fleet.node(2).resume();
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fleet.node(2).call("GET", "redlock:lock:slow-release") == null);
		}
	}

}
