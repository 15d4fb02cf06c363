package io.github.redlock.engine;

import java.time.Duration;
import java.util.Optional;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.Script;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A failed attempt sends no release to a node that answered "held by another owner"
 * (issue 15, item 3): the acquire script saw another value there in the same atomic step
 * as its {@code SET NX}, and a command is never replayed after a reconnect, so this
 * attempt's value can never be on that node and a compare-and-delete could delete
 * nothing. Every other node still gets the release, also one that had not answered when
 * the attempt was decided. The commands each node ran are counted from
 * {@code INFO commandstats}. The held-node assertions failed before the change (each held
 * node ran 2 scripts, the acquire and a useless release, instead of 1).
 */
class HeldNodeReleaseIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private static final String LOCK_KEY = "redlock:lock:{held}";

	@Test
	void failedAttemptSendsNoReleaseToNodesHeldByAnotherRegistry() throws Exception {
		try (RedlockRegistry holder = registry(); RedlockRegistry contender = registry()) {
			warmUp(holder);
			Lease lease = holder.acquire("held", Duration.ofSeconds(3), Duration.ZERO);
			long[] before = scripts();
			assertThat(contender.tryAcquire("held", Duration.ofSeconds(3))).isEmpty();
			contender.close(); // lets every script it sent land
			long[] sent = delta(before, scripts());
			// the acquire only: every node answered "held"
			assertThat(sent).containsExactly(1, 1, 1, 1, 1);
			assertThat(lease.isHeld()).isTrue();
			lease.release();
		}
	}

	@Test
	void nodeThatHadNotAnsweredStillGetsTheReleaseAndLosesTheLateValue() throws Exception {
		// another owner holds nodes 0 and 1; node 4 is paused, so the attempt is decided
		// (failed) by its timeout after 2 nodes agreed and 2 answered "held"
		for (int i = 0; i < 2; i++) {
			fleet.node(i).call("SET", LOCK_KEY, "another-secret:other-host:1:main", "PX", "10000");
		}
		try (RedlockRegistry contender = registry()) {
			warmUp(contender); // connected to all five before the pause
			long[] before = scripts();
			RedisNode paused = fleet.node(4);
			paused.pause();
			try {
				Optional<Lease> lease = contender.tryAcquire("held", Duration.ofSeconds(3));
				assertThat(lease).isEmpty();
			}
			finally {
				paused.resume();
			}
			// node 4 runs the late acquire, which sets the value, then the release
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(delta(before, scripts())).containsExactly(1, 1, 2, 2, 2));
			for (int i = 2; i < 5; i++) {
				assertThat(fleet.node(i).call("EXISTS", LOCK_KEY)).isEqualTo(0L);
			}
		}
	}

	/**
	 * Loads the scripts on every node, so that no NOSCRIPT retry adds to the counts.
	 */
	private static void warmUp(RedlockRegistry registry) throws InterruptedException {
		// a failed attempt's withdrawal is a script of its own, which no success runs
		for (RedisNode node : fleet.fleet().nodes()) {
			node.call("SCRIPT", "LOAD", Script.WITHDRAW.text());
		}
		registry.acquire("warm-up", Duration.ofSeconds(3), Duration.ZERO).release();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> fleet.fleet()
				.nodes()
				.stream()
				.allMatch((node) -> node.call("EXISTS", "redlock:lock:{warm-up}").equals(0L)));
	}

	private static RedlockRegistry registry() {
		return TestRegistries.builder(fleet).nodeTimeout(Duration.ofMillis(200)).build().start();
	}

	/**
	 * Counts the scripts each node has run so far, by SHA or by text.
	 */
	private static long[] scripts() {
		long[] counts = new long[5];
		for (int i = 0; i < 5; i++) {
			counts[i] = NodeStats.scripts(fleet.node(i));
		}
		return counts;
	}

	private static long[] delta(long[] before, long[] after) {
		long[] delta = new long[before.length];
		for (int i = 0; i < delta.length; i++) {
			delta[i] = after[i] - before[i];
		}
		return delta;
	}

}
