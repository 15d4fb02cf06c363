package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attempts of another process made while a holder keeps the lock on a bare quorum of
 * nodes: each succeeds on the free minority, is refused by the holder's nodes, and
 * withdraws. Each such attempt incremented the minority's fencing counters, so that after
 * a few of them those nodes stood ahead of the holder's and the next holder needed a
 * second round to raise the others (issue 27: most second rounds between processes).
 * <p>
 * Before the withdrawal undid the attempt's increment this failed: the five counters were
 * {@code [c, c, c, c+2, c+2]} after three refused attempts, and the next acquisition took
 * a second round. Since every attempt sends the value a counter starts from or is lifted
 * to (the time the nodes' clocks agree on, in µs), the minority's counters stand at the
 * last refused attempt's start less one, and the next attempt's start, later, lifts every
 * node to the same value: the counters need not be equal before it for one round to do.
 */
class RefusedAttemptCounterIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private static final String KEY = "refused";

	@Test
	void attemptsRefusedByAHolderLeaveTheCountersAlignedSoTheNextHolderNeedsNoSecondRound() throws Exception {
		try (RedlockRegistry holder = registry(); RedlockRegistry other = registry()) {
			// aligns the counters: every node answers, none is held
			holder.acquire(KEY, Duration.ofSeconds(30), Duration.ofSeconds(5)).release();
			awaitDeletions(holder);
			for (int round = 0; round < 20 && counters().stream().distinct().count() > 1; round++) {
				holder.acquire(KEY, Duration.ofSeconds(30), Duration.ofSeconds(5)).release();
				awaitDeletions(holder);
			}
			assertThat(counters().stream().distinct()).as("counters after the warm-up").hasSize(1);
			// the holder takes the lock on nodes 0 to 2 only: another owner's value keeps
			// nodes 3 and 4 (the bare quorum's attempt there is refused, and its counter
			// not incremented)
			fleet.node(3).call("SET", "redlock:lock:{" + KEY + "}", "someone-else", "PX", "30000");
			fleet.node(4).call("SET", "redlock:lock:{" + KEY + "}", "someone-else", "PX", "30000");
			Lease held = holder.acquire(KEY, Duration.ofSeconds(30), Duration.ofSeconds(5));
			fleet.node(3).call("DEL", "redlock:lock:{" + KEY + "}");
			fleet.node(4).call("DEL", "redlock:lock:{" + KEY + "}");
			for (int attempt = 0; attempt < 3; attempt++) {
				Optional<Lease> refused = other.tryAcquire(KEY, Duration.ofSeconds(30));
				assertThat(refused).isEmpty();
				awaitDeletions(other);
			}
			held.release();
			awaitDeletions(holder);
			List<Long> before = counters();
			long roundsBefore = other.fencingRounds();
			Lease next = other.acquire(KEY, Duration.ofSeconds(30), Duration.ofSeconds(5));
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
			next.release();
			awaitDeletions(other);
			assertThat(other.fencingRounds()).as("second rounds of the next acquisition, counters %s before", before)
				.isEqualTo(roundsBefore);
			assertThat(counters().stream().distinct()).as("fencing counters after it").hasSize(1);
		}
	}

	private static List<Long> counters() {
		return fleet.fleet()
			.nodes()
			.stream()
			.map((node) -> node.call("GET", "redlock:fence:{" + KEY + "}"))
			.map((counter) -> (counter != null) ? Long.parseLong(counter.toString()) : -1L)
			.toList();
	}

	private static void awaitDeletions(RedlockRegistry registry) throws InterruptedException {
		assertThat(registry.parts().fleet.awaitDeletions(TimeUnit.SECONDS.toNanos(10))).as("every node answered")
			.isTrue();
	}

	private static RedlockRegistry registry() {
		// a node timeout that a loaded machine does not run into: every node must answer
		return TestRegistries.builder(fleet).nodeTimeout(Duration.ofSeconds(1)).build().start();
	}

}
