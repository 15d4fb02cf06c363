package io.github.redlock.embedded;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Nodes whose wall clock a test moves, through libfaketime. Skipped, saying why, where
 * libfaketime is not installed, unless {@value FakeClocks#REQUIRED_VARIABLE} is set (as
 * CI sets it): then they fail.
 */
class FakeClocksIntegrationTests {

	@Test
	void aMovedClockMovesTimeAndExpiresKeysByIt() {
		FakeClocks.assumeAvailable();
		try (RedisFleet fleet = RedisFleet.startWithFakeClocks(1)) {
			RedisNode node = fleet.node(0);
			assertThat(node.hasFakeClock()).isTrue();
			assertThat(Math.abs(offsetMillis(node))).as("offset before any move").isLessThan(2000);
			node.call("SET", "five-seconds", "v", "PX", "5000");
			node.clockOffset(Duration.ofSeconds(10));
			assertThat(offsetMillis(node)).isBetween(8000L, 12000L);
			// a key is expired when read after its expiry by the node's clock
			assertThat(node.call("GET", "five-seconds")).isNull();
			node.clockOffset(Duration.ofMillis(-2500));
			assertThat(offsetMillis(node)).isBetween(-4500L, -500L);
			node.restart(true);
			assertThat(node.clockOffset()).isEqualTo(Duration.ofMillis(-2500));
			assertThat(offsetMillis(node)).as("offset kept across a restart").isBetween(-4500L, -500L);
			node.clockOffsetFromNextStart(Duration.ofSeconds(20));
			assertThat(offsetMillis(node)).as("offset until the next start").isBetween(-4500L, -500L);
			node.restart(false);
			assertThat(node.clockOffset()).isEqualTo(Duration.ofSeconds(20));
			assertThat(offsetMillis(node)).as("offset from the next start").isBetween(18000L, 22000L);
			fleet.undoFaults();
			assertThat(node.clockOffset()).isZero();
			assertThat(Math.abs(offsetMillis(node))).as("offset after the faults were undone").isLessThan(2000);
		}
	}

	@Test
	void aFleetMayMixNodesWithAFakeClockAndNodesOfTheUsualBinary() {
		FakeClocks.assumeAvailable();
		try (RedisFleet fleet = RedisFleet.startWithFakeClocks(3, 2)) {
			assertThat(fleet.nodes()).extracting(RedisNode::hasFakeClock).containsExactly(true, true, false);
			assertThat(fleet.node(0).binary()).isEqualTo(FakeClocks.binary());
			assertThat(fleet.node(2).binary()).isEqualTo(RedisServerBinary.get());
			fleet.node(1).clockOffset(Duration.ofSeconds(30));
			assertThat(offsetMillis(fleet.node(1))).isBetween(28000L, 32000L);
			assertThat(Math.abs(offsetMillis(fleet.node(2)))).isLessThan(2000);
		}
	}

	@Test
	void aNodeWithTheMachinesClockRefusesToMoveIt() {
		try (RedisFleet fleet = RedisFleet.start(1)) {
			assertThat(fleet.node(0).hasFakeClock()).isFalse();
			assertThatIllegalStateException().isThrownBy(() -> fleet.node(0).clockOffset(Duration.ofSeconds(1)))
				.withMessageContaining("startWithFakeClocks");
		}
	}

	/**
	 * Returns how far the node's clock ({@code TIME}) is from this JVM's.
	 */
	private static long offsetMillis(RedisNode node) {
		List<?> time = (List<?>) node.call("TIME");
		long nodeMillis = Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
		return nodeMillis - System.currentTimeMillis();
	}

}
