package io.github.redlock.engine;

import java.time.Duration;
import java.util.logging.Level;

import io.github.redlock.Lease;
import io.github.redlock.embedded.FakeClocks;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.NodeClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A registry watches its nodes' clocks (issue 37, item 2): a node whose clock jumps,
 * forward or back, while it runs counts toward no quorum until its clock has been steady
 * for the guard time, and says so in health and in one warning. Real clock faults:
 * libfaketime moves a running redis-server's wall clock. Failed before the registry read
 * the clocks: the node stepped 10 s forward stayed usable, and expired every lock on it
 * 10 s early.
 */
class ClockJumpIntegrationTests {

	private static final Duration MAX_TTL = Duration.ofSeconds(2);

	private static RedisFleet fleet;

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	@BeforeAll
	static void startFleet() {
		FakeClocks.assumeAvailable();
		fleet = RedisFleet.startWithFakeClocks(3);
	}

	@AfterAll
	static void stopFleet() {
		if (fleet != null) {
			fleet.close();
		}
	}

	@AfterEach
	void trueClocks() {
		fleet.nodes().forEach((node) -> node.clockOffset(Duration.ZERO));
	}

	private RedlockRegistry registry() {
		RedlockRegistry registry = this.registries.start(RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(true)
			.maxTtl(MAX_TTL)
			.defaultTtl(MAX_TTL)
			.nodeTimeout(Duration.ofMillis(150)));
		await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 3);
		return registry;
	}

	@Test
	void aNodeWhoseClockJumpsForwardIsOutUntilItsClockWasSteadyForTheGuardTime() throws Exception {
		try (LogCapture log = LogCapture.of(Level.INFO, NodeClient.class.getPackageName() + ".NodeClock")) {
			RedlockRegistry registry = registry();
			RedisNode jumped = fleet.node(0);
			jumped.clockOffset(jumped.clockOffset().plusSeconds(10));
			// the jump is read first; a reading later, the node is off the median too
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(registry.checkNodes().get(0).problem())
					.matches("clock unsteady \\(its clock (jumped \\+10\\.0\\d\\ds between two readings \\d+ms apart"
							+ "|is \\+10\\.0\\d\\ds off the median of the nodes' clocks.*); counts again in \\d+s\\)"));
			assertThat(registry.usableNodes()).isEqualTo(2);
			try (Lease lease = registry.acquire("jump", MAX_TTL, Duration.ofSeconds(5))) {
				assertThat(lease.fencingToken()).as("the other two are a quorum").isGreaterThan(0);
			}
			// set right, which is a jump too: it counts once steady for the guard time
			jumped.clockOffset(Duration.ZERO);
			await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 3);
			assertThat(log.lines()).filteredOn((line) -> line.contains(jumped.uri()) && line.contains("jumped"))
				.hasSize(1);
			assertThat(log.lines())
				.filteredOn((line) -> line.contains(jumped.uri()) && line.contains("counts toward quorums again"))
				.hasSize(1);
		}
	}

	/**
	 * The count behind the {@code redlock.nodes.clock.faults} gauge, written before it
	 * existed: nothing but {@code checkNodes}, which asks every node, told of a clock
	 * fault.
	 */
	@Test
	void theNodesAClockFaultKeepsOutAreCountedWithoutAskingThem() throws Exception {
		RedlockRegistry registry = registry();
		assertThat(registry.clockFaultNodes()).isZero();
		RedisNode jumped = fleet.node(2);
		jumped.clockOffset(jumped.clockOffset().plusSeconds(10));
		await().atMost(Duration.ofSeconds(10)).until(() -> registry.clockFaultNodes() == 1);
		// checkNodes asks the node: on a loaded machine it may time out first
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(registry.checkNodes().get(2).problem()).startsWith("clock unsteady"));
		// stopped, the node could not answer a question: the count does not ask it
		jumped.pause();
		try {
			assertThat(registry.clockFaultNodes()).isEqualTo(1);
		}
		finally {
			jumped.resume();
		}
		jumped.clockOffset(Duration.ZERO);
		await().atMost(Duration.ofSeconds(30)).until(() -> registry.usableNodes() == 3);
		assertThat(registry.clockFaultNodes()).isZero();
	}

	@Test
	void aNodeWhoseClockIsSetBackIsOutToo() {
		RedlockRegistry registry = registry();
		RedisNode jumped = fleet.node(1);
		jumped.clockOffset(jumped.clockOffset().minusSeconds(5));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(
					() -> assertThat(registry.checkNodes().get(1).problem()).startsWith("clock unsteady (its clock ")
						.containsAnyOf("jumped -5.0", "is -5.0"));
	}

}
