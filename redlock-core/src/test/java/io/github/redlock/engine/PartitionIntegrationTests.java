package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.FleetProxy;
import io.github.redlock.embedded.NodeProxy.Direction;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Network partitions between clients and nodes, the fault the Redlock spec is about: each
 * client reaches the five nodes through proxies of its own, so one client can be cut off
 * from some nodes while another still reaches them.
 */
class PartitionIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			this.closeables.get(i).close();
		}
	}

	@Test
	void twoClientsEachWithAMajorityThatOverlapsNeverHoldTogether() throws Exception {
		FleetProxy a = proxy("a");
		FleetProxy b = proxy("b");
		RedlockRegistry registryA = registry(a);
		RedlockRegistry registryB = registry(b);
		// A reaches nodes 0-2, B reaches nodes 2-4: node 2 decides
		a.partition(3, 4);
		b.partition(0, 1);
		Lease held = registryA.acquire("split", Duration.ofSeconds(10), Duration.ofSeconds(5));
		assertThatThrownBy(() -> registryB.acquire("split", Duration.ofSeconds(10), Duration.ofMillis(500)))
			.isInstanceOf(LockAcquisitionException.class);
		long token = held.fencingToken();
		held.release();
		try (Lease next = registryB.acquire("split", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
			assertThat(next.fencingToken()).isGreaterThan(token);
		}
		// healed, A's commands held for nodes 3 and 4 arrive in order (its acquire, then
		// its release) and leave no lock key behind
		a.heal();
		b.heal();
		await().atMost(Duration.ofSeconds(15))
			.untilAsserted(() -> assertThat(fleet.fleet().nodes())
				.allSatisfy((node) -> assertThat(node.call("EXISTS", "redlock:lock:{split}")).isEqualTo(0L)));
	}

	@Test
	void aClientCutOffFromAMajorityFailsWithinItsWaitTime() throws Exception {
		FleetProxy a = proxy("a");
		RedlockRegistry registry = registry(a);
		a.partition(0, 1, 2);
		long start = System.nanoTime();
		assertThatThrownBy(() -> registry.acquire("minority", Duration.ofSeconds(10), Duration.ofSeconds(1)))
			.isInstanceOf(LockAcquisitionException.class);
		// nothing hangs: the wait time and one call's bound, with slack for a loaded
		// machine
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void aHolderCutOffFromAMajorityLosesItsLeaseAndTheNextHolderGetsAHigherToken() throws Exception {
		FleetProxy a = proxy("a");
		FleetProxy b = proxy("b");
		RedlockRegistry registryA = registry(a);
		RedlockRegistry registryB = registry(b);
		Lease held = registryA.acquire("cut-holder", Duration.ofSeconds(1), Duration.ofSeconds(5), true);
		CountDownLatch lost = new CountDownLatch(1);
		held.addListener((lease, cause) -> lost.countDown());
		a.partition(0, 1, 2);
		assertThat(lost.await(10, TimeUnit.SECONDS)).as("lease lost signalled").isTrue();
		assertThat(held.isHeld()).isFalse();
		// B takes the lock once A's keys expired on the nodes A no longer reaches
		try (Lease next = registryB.acquire("cut-holder", Duration.ofSeconds(5), Duration.ofSeconds(10))) {
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
		held.release();
	}

	@Test
	void timeSpentOnTheNetworkCountsAgainstValidity() throws Exception {
		FleetProxy a = proxy("a");
		RedlockRegistry registry = TestRegistries.builder(a.uris())
			.nodeTimeout(Duration.ofSeconds(1))
			.defaultTtl(Duration.ofSeconds(10))
			.build()
			.start();
		this.closeables.add(registry);
		for (int node = 0; node < 5; node++) {
			a.node(node).delay(Direction.TO_CLIENT, Duration.ofMillis(300));
		}
		try (Lease lease = registry.acquire("slow-replies", Duration.ofSeconds(5), Duration.ofSeconds(5))) {
			// the replies took at least 300 ms: the lease cannot claim them
			assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(4700));
		}
	}

	private FleetProxy proxy(String client) {
		FleetProxy proxy = fleet.fleet().proxy(client);
		this.closeables.add(proxy);
		return proxy;
	}

	private RedlockRegistry registry(FleetProxy proxy) {
		RedlockRegistry registry = TestRegistries.builder(proxy.uris()).build().start();
		this.closeables.add(registry);
		return registry;
	}

}
