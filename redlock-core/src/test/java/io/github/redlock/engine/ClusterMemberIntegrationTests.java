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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

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
				for (RedisCluster cluster : clusters.clusters()) {
					assertThat(String.valueOf(cluster.masterFor(lockKey).call("GET", lockKey)))
						.as("the lock on the master of its slot in %s", cluster)
						.isNotEqualTo("null");
				}
			}
			try (Lease again = registry.acquire(key, Duration.ofSeconds(10), Duration.ofSeconds(5))) {
				assertThat(again.fencingToken()).as("tokens of one key rise").isGreaterThan(first);
			}
		}
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
