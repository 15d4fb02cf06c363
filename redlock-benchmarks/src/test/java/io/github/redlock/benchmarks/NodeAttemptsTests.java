package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link NodeAttempts} counts on the first of three real nodes, for attempts whose
 * outcome on that node is known.
 */
class NodeAttemptsTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	@Test
	void countsTheRegistrysGrantedAndRefusedAttemptsOnTheNode() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(3);
				RegistryContender contender = new RegistryContender(fleet.uris(), TTL, false);
				RedlockRegistry other = usable(RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false))) {
			contender.awaitUsable(Duration.ofSeconds(60));
			String key = "attempts";
			try (NodeAttempts attempts = new NodeAttempts(fleet.node(0))) {
				NodeAttempts.Count count = attempts.count(contender.lockKey(key), true, () -> {
					for (int i = 0; i < 5; i++) {
						contender.acquire(key).release();
					}
					Contender.Held held = contender.acquire(key);
					for (int i = 0; i < 3; i++) {
						assertThat(other.tryAcquire(key, TTL)).isEmpty();
					}
					held.release();
				});
				// Before the count read keyspace events, it took the registry's granted
				// attempts to be its INCR calls: the acquire script runs none since the
				// counter starts from the value the client sends, and this printed
				// "expected: 6 but was: 0".
				assertThat(count.granted()).isEqualTo(6);
				assertThat(count.refused()).isEqualTo(3);
				assertThat(count.attempts()).isEqualTo(9);
			}
		}
	}

	@Test
	void countsTheBareQuorumsAttemptsThatTheNodeRefusedAsWellAsThoseItGranted() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(3);
				BareQuorumContender bare = new BareQuorumContender(fleet.uris(), TTL, Duration.ofMillis(1));
				NodeAttempts attempts = new NodeAttempts(fleet.node(0))) {
			String key = "attempts";
			RedisNode first = fleet.node(0);
			first.call("SET", key, "someone else", "PX", "60000");
			NodeAttempts.Count count = attempts.count(key, false, () -> {
				// the first node refuses these; the other two make the quorum
				for (int i = 0; i < 4; i++) {
					bare.acquire(key).release();
				}
				first.call("DEL", key);
				for (int i = 0; i < 3; i++) {
					bare.acquire(key).release();
				}
			});
			assertThat(count.refused()).isEqualTo(4);
			assertThat(count.granted()).isEqualTo(3);
		}
	}

	private static RedlockRegistry usable(RedlockRegistry.Builder builder) {
		RedlockRegistry registry = builder.build().start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (registry.usableNodes() < registry.nodeCount() && System.nanoTime() - deadline < 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
		return registry;
	}

}
