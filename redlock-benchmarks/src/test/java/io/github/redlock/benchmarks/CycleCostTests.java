package io.github.redlock.benchmarks;

import io.github.redlock.embedded.RedisFleet;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What {@link CycleCost} reads, against a real node: a cycle here is two commands.
 */
class CycleCostTests {

	@Test
	void countsTheNodesCommandsAndCpuPerCycle() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(1)) {
			CycleCost cost = new CycleCost();
			Figures.Rate rate = new Figures.Rate();
			cost.measure(fleet.nodes(), rate, () -> {
				for (int i = 0; i < 500; i++) {
					fleet.node(0).call("SET", "cost:" + i, "v");
					fleet.node(0).call("GET", "cost:" + i);
				}
				rate.add(500, 1_000_000);
			});
			// the readings' own INFO commands add two: the first's last, the second's
			// first
			assertThat(cost.nodeCommands()).isCloseTo(1002 / 500.0, within(1e-9));
			assertThat(cost.nodeReads()).isGreaterThanOrEqualTo(2.0);
			assertThat(cost.nodesUser() + cost.nodesSystem()).isPositive();
			assertThat(cost.jvmUser()).isNotNaN().isNotNegative();
			assertThat(cost.jvmSystem()).isNotNaN().isNotNegative();
			assertThat(cost.jvmCompiler()).isNotNaN().isNotNegative();
			assertThat(cost.total()).isGreaterThanOrEqualTo(cost.nodesUser() + cost.nodesSystem());
		}
	}

	@Test
	void withoutCyclesThereIsNoCostPerCycle() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(1)) {
			CycleCost cost = new CycleCost();
			cost.measure(fleet.nodes(), new Figures.Rate(), () -> fleet.node(0).call("PING"));
			assertThat(cost.nodeCommands()).isNaN();
			assertThat(cost.total()).isNaN();
		}
	}

}
