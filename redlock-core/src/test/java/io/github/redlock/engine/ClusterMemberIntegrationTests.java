package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisCluster;
import io.github.redlock.embedded.RedisClusterExtension;
import io.github.redlock.embedded.RedisNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A quorum of three Redis Clusters of three masters each: a key's vote in each member is
 * the answer of the master that owns the key's slot, the key's state is on that master
 * alone, and locking across members excludes as it does across single nodes.
 */
class ClusterMemberIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension clusters = RedisClusterExtension.clusters(3).masters(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	private RedlockRegistry.Builder builder() {
		RedlockRegistry.Builder builder = RedlockRegistry.builder().restartGuard(false);
		for (List<String> seeds : clusters.seedUris()) {
			builder.cluster(seeds.toArray(String[]::new));
		}
		return builder;
	}

	@Test
	void eachMembersVoteIsTheMasterOfTheKeysSlot() throws InterruptedException {
		RedlockRegistry registry = this.registries.start(builder());
		assertThat(registry.nodeCount()).isEqualTo(3);
		for (int i = 0; i < 20; i++) {
			String key = "order-" + i;
			long first;
			try (Lease lease = registry.acquire(key, Duration.ofSeconds(10), Duration.ofSeconds(5))) {
				first = lease.fencingToken();
				assertThat(first).isGreaterThan(0);
				String lockKey = "redlock:lock:{" + key + "}";
				// the acquisition returns once a quorum of members agreed: the third
				// member's reply may still be on its way
				long holding = clusters.clusters()
					.stream()
					.filter((cluster) -> cluster.masterFor(lockKey).call("GET", lockKey) != null)
					.count();
				assertThat(holding).as("members whose slot master holds the lock").isGreaterThanOrEqualTo(2);
			}
			try (Lease again = registry.acquire(key, Duration.ofSeconds(10), Duration.ofSeconds(5))) {
				assertThat(again.fencingToken()).as("tokens of one key rise").isGreaterThan(first);
			}
		}
	}

	/**
	 * A master killed without a replica leaves its slots without an owner, and a cluster
	 * that needs full coverage answers CLUSTERDOWN for every key: that member is one
	 * member down, named so by the health check, and the other two are a quorum.
	 */
	@Test
	void aClusterThatIsDownIsOneMemberDown() throws InterruptedException {
		RedlockRegistry registry = this.registries.start(builder());
		RedisCluster down = clusters.cluster(0);
		RedisNode killed = down.masters().get(0);
		String slots = down.slotRanges(killed).get(0).toString();
		RedisNode survivor = down.masters().get(1);
		killed.kill();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> String.valueOf(survivor.call("CLUSTER", "INFO")).contains("cluster_state:fail"));
		for (int i = 0; i < 10; i++) {
			try (Lease lease = registry.acquire("down-" + i, Duration.ofSeconds(10), Duration.ofSeconds(10))) {
				assertThat(lease.fencingToken()).isGreaterThan(0);
			}
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> registry.usableNodes() == 2);
		// the member's view names the slots once a refresh read a master that had marked
		// the killed one failed: the first refreshes may still see it as a master that
		// refuses connections
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			NodeStatus status = registry.checkNodes().get(0);
			assertThat(status.usable()).isFalse();
			assertThat(status.problem()).contains("slots " + slots + " have no master");
		});
	}

	/**
	 * A cluster of one master never met another server, so it names itself without an
	 * address in {@code CLUSTER NODES}. Failed before the member took the address of the
	 * server that answered: its topology could not be read ("RedisClusterNode.getUri() is
	 * null"), and every call answered "no master is known to own slot 9084".
	 */
	@Test
	void clustersOfOneMasterEach() throws Exception {
		List<RedisCluster> single = new ArrayList<>();
		try {
			RedlockRegistry.Builder builder = RedlockRegistry.builder().restartGuard(false);
			for (int i = 0; i < 3; i++) {
				RedisCluster cluster = RedisCluster.start("one" + i, 1, 0, RedisCluster.DEFAULT_NODE_TIMEOUT);
				single.add(cluster);
				builder.cluster(cluster.seedUris().toArray(String[]::new));
			}
			RedlockRegistry registry = this.registries.start(builder);
			try (Lease lease = registry.acquire("one", Duration.ofSeconds(10), Duration.ofSeconds(5))) {
				assertThat(lease.fencingToken()).isGreaterThan(0);
			}
		}
		finally {
			single.forEach(RedisCluster::close);
		}
	}

	@Test
	void twoRegistriesNeverHoldOneKeyAtOnce() throws Exception {
		RedlockRegistry first = this.registries.start(builder());
		RedlockRegistry second = this.registries.start(builder());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger sections = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				RedlockRegistry registry = (t % 2 == 0) ? first : second;
				work.add(threads.submit(() -> {
					long last = 0;
					for (int i = 0; i < 25; i++) {
						try (Lease lease = registry.acquire("shared", Duration.ofSeconds(10), Duration.ofSeconds(30))) {
							if (inside.incrementAndGet() != 1) {
								overlaps.incrementAndGet();
							}
							assertThat(lease.fencingToken()).isGreaterThan(last);
							last = lease.fencingToken();
							sections.incrementAndGet();
							inside.decrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : work) {
				future.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(sections).hasValue(200);
		assertThat(overlaps).hasValue(0);
	}

}
