package io.github.redlock.engine;

import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node whose memory policy can evict lock keys and fencing counters counts toward no
 * quorum unless the operator accepts it (issue 11, item 8): an evicted lock key breaks
 * exclusion, and a counter evicted and started again within a second repeats a token.
 * Failed before the fix: the node counted whatever its policy.
 */
class EvictionPolicyIntegrationTests {

	@RegisterExtension
	final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private RedlockRegistry registry;

	@AfterEach
	void close() {
		if (this.registry != null) {
			this.registry.close();
		}
	}

	private List<NodeStatus> statusWithAnEvictingNode(boolean accept) {
		this.fleet.node(0).call("CONFIG", "SET", "maxmemory", "100mb");
		this.fleet.node(0).call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
		this.registry = TestRegistries.builder(this.fleet).acceptEviction(accept).build().start();
		return this.registry.checkNodes();
	}

	@Test
	void aNodeThatCanEvictLockKeysCountsTowardNoQuorum() {
		List<NodeStatus> status = statusWithAnEvictingNode(false);
		assertThat(status.get(0).usable()).isFalse();
		assertThat(status.get(0).problem()).contains("maxmemory-policy volatile-lru")
			.contains("noeviction")
			.contains("accept-eviction");
		assertThat(status.subList(1, 3)).allMatch(NodeStatus::usable);
	}

	@Test
	void theOperatorMayAcceptEviction() {
		List<NodeStatus> status = statusWithAnEvictingNode(true);
		assertThat(status).allMatch(NodeStatus::usable);
	}

	@Test
	void noevictionAndNoMemoryLimitAreSafe() {
		this.fleet.node(0).call("CONFIG", "SET", "maxmemory", "100mb");
		this.fleet.node(0).call("CONFIG", "SET", "maxmemory-policy", "noeviction");
		this.fleet.node(1).call("CONFIG", "SET", "maxmemory", "0");
		this.fleet.node(1).call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		this.registry = TestRegistries.builder(this.fleet).build().start();
		assertThat(this.registry.checkNodes()).allMatch(NodeStatus::usable);
	}

}
