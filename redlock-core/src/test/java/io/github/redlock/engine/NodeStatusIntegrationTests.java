package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedlockRegistry#checkNodes()}: which nodes count toward a quorum now, and why
 * the others do not.
 */
class NodeStatusIntegrationTests {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(300);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry registry(boolean restartGuard) {
		RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(restartGuard)
			.maxTtl(Duration.ofSeconds(3))
			.defaultTtl(Duration.ofSeconds(3))
			.nodeTimeout(NODE_TIMEOUT)
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

	@Test
	void healthyNodesAreUsableInConfigurationOrder() {
		RedlockRegistry registry = registry(false);
		List<NodeStatus> nodes = registry.checkNodes();
		assertThat(nodes).extracting(NodeStatus::node).containsExactlyElementsOf(fleet.uris());
		assertThat(nodes).allSatisfy((node) -> {
			assertThat(node.usable()).isTrue();
			assertThat(node.latency()).isNotNull().isPositive();
			assertThat(node.problem()).isNull();
		});
		assertThat(registry.quorum()).isEqualTo(2);
	}

	@Test
	void aKilledNodeAndAPausedNodeAreNotUsableAndSayWhy() {
		RedlockRegistry registry = registry(false);
		fleet.node(0).kill();
		fleet.node(2).pause();
		long start = System.nanoTime();
		List<NodeStatus> nodes = registry.checkNodes();
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(nodes.get(0).usable()).isFalse();
		assertThat(nodes.get(0).problem()).containsAnyOf("refused", "not connected");
		assertThat(nodes.get(0).latency()).isNull();
		assertThat(nodes.get(1).usable()).isTrue();
		assertThat(nodes.get(2).usable()).isFalse();
		assertThat(nodes.get(2).problem()).contains("timed out");
		// bounded by the node timeout, not by how long the node stays paused (generous
		// slack for a busy machine)
		assertThat(took).isLessThan(NODE_TIMEOUT.plusSeconds(3));
		fleet.node(2).resume();
		fleet.node(0).start();
		// the registry reconnects to the restarted node by itself
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(registry.checkNodes()).allMatch(NodeStatus::usable));
	}

	@Test
	void freshlyStartedNodesAreKeptOutByTheRestartGuardUntilTheMaximumTtlHasPassed() {
		// the fleet is flushed between tests: no node carries a marker, so for all the
		// registry knows each one lost its locks
		RedlockRegistry registry = registry(true);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(registry.checkNodes()).allSatisfy((node) -> {
				assertThat(node.usable()).isFalse();
				assertThat(node.problem()).contains("recently restarted");
				assertThat(node.latency()).as("it answers; it just does not count").isNotNull();
			}));
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(registry.checkNodes()).allMatch(NodeStatus::usable));
	}

}
