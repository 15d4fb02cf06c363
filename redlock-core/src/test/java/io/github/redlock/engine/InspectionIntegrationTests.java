package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockInfo;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.engine.node.Script;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class InspectionIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private RedlockRegistry registry;

	@BeforeEach
	void createRegistry() {
		this.registry = TestRegistries.builder(fleet).nodeTimeout(Duration.ofMillis(250)).build().start();
	}

	@AfterEach
	void closeRegistry() {
		this.registry.close();
	}

	@Test
	void showsTheHolderOnEveryNodeWithItsRemainingTimeAndCounter() throws Exception {
		try (Lease lease = this.registry.acquire("inspected", Duration.ofSeconds(10), Duration.ZERO)) {
			LockInfo info = this.registry.inspect("inspected");
			String owner = ":" + ProcessHandle.current().pid() + ":" + Thread.currentThread().getName();
			assertThat(info.holder()).hasValueSatisfying((holder) -> assertThat(holder).endsWith(owner));
			// a quorum holds it when acquire returns; wait for the late nodes
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.registry.inspect("inspected")
					.nodes()
					.stream()
					.allMatch((node) -> node.owner() != null));
			info = this.registry.inspect("inspected");
			assertThat(info.nodes()).hasSize(5).allSatisfy((node) -> {
				assertThat(node.owner()).endsWith(owner);
				assertThat(node.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
				assertThat(node.fencingCounter()).isPositive();
				assertThat(node.error()).isNull();
			});
			// the fencing invariant: a quorum holds counters at least as high as the
			// token
			// (a node that answered after the decision may lag behind)
			assertThat(info.nodes()).filteredOn((node) -> node.fencingCounter() >= lease.fencingToken())
				.hasSizeGreaterThanOrEqualTo(info.quorum());
			assertThat(info.nodes()).extracting(LockInfo.NodeState::holding)
				.containsOnly(info.nodes().get(0).holding());
			String lockValue = (String) fleet.node(0).call("GET", "redlock:lock:{inspected}");
			assertThat(info.toString()).doesNotContain(lockValue.substring(0, lockValue.indexOf(':')));
		}
		LockInfo after = this.registry.inspect("inspected");
		assertThat(after.holder()).isEmpty();
		assertThat(after.isHeldAnywhere()).isFalse();
	}

	/**
	 * A process that queues for the key marks the holder's value on the nodes where it
	 * queued (Script.QUEUE_WAITER): the holder stays the same, on every node. Before the
	 * inspection knew the mark, the marked nodes' fingerprint differed from the others',
	 * and this test failed.
	 */
	@Test
	void aValueMarkedByAQueuedWaiterShowsTheSameHolder() throws Exception {
		try (Lease lease = this.registry.acquire("marked", Duration.ofSeconds(10), Duration.ZERO)) {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.registry.inspect("marked").nodes().stream().allMatch((node) -> node.owner() != null));
			for (int i = 0; i < 2; i++) {
				assertThat(fleet.node(i)
					.call("EVAL", Script.QUEUE_WAITER.text(), "2", "redlock:lock:{marked}", "redlock:waiters:{marked}",
							String.valueOf(System.currentTimeMillis()), "elsewhere", "60000"))
					.isEqualTo(1L);
			}
			assertThat((String) fleet.node(0).call("GET", "redlock:lock:{marked}")).contains("+:");
			LockInfo info = this.registry.inspect("marked");
			String owner = ":" + ProcessHandle.current().pid() + ":" + Thread.currentThread().getName();
			assertThat(info.holder()).hasValueSatisfying((holder) -> assertThat(holder).endsWith(owner));
			assertThat(info.nodes()).allSatisfy((node) -> assertThat(node.owner()).endsWith(owner));
			assertThat(info.nodes()).extracting(LockInfo.NodeState::holding)
				.containsOnly(info.nodes().get(4).holding());
			assertThat(lease.isHeld()).isTrue();
		}
	}

	@Test
	void aMinorityOfStrayKeysIsNoHolder() {
		fleet.node(0).call("SET", "redlock:lock:{stray}", "secret:somehost:42:worker", "PX", "60000");
		fleet.node(1).call("SET", "redlock:lock:{stray}", "secret:somehost:42:worker", "PX", "60000");
		LockInfo info = this.registry.inspect("stray");
		assertThat(info.isHeldAnywhere()).isTrue();
		assertThat(info.holder()).isEmpty();
		assertThat(info.nodes().get(0).owner()).isEqualTo("somehost:42:worker");
		assertThat(info.nodes().get(2).owner()).isNull();
	}

	@Test
	void unreachableNodesAreReportedNotFatal() {
		fleet.node(3).kill();
		LockInfo info = this.registry.inspect("unreachable");
		assertThat(info.nodes().get(3).error()).isNotNull();
		assertThat(info.nodes().get(0).error()).isNull();
	}

}
