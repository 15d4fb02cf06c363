package io.github.redlock.embedded;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

class RedisClusterExtensionIntegrationTests {

	private static long startNanos;

	@RegisterExtension
	@Order(0)
	static final BeforeAllCallback clock = (context) -> startNanos = System.nanoTime();

	@RegisterExtension
	@Order(1)
	static final RedisClusterExtension members = RedisClusterExtension.clusters(3).masters(3);

	@BeforeAll
	static void printStartTime() {
		System.out.printf("Started 3 clusters of 3 masters (%s) in %d ms%n", RedisServerBinary.get().version(),
				Duration.ofNanos(System.nanoTime() - startNanos).toMillis());
	}

	@Test
	void eachMemberIsAClusterOfItsOwn() {
		Set<String> seeds = new HashSet<>();
		for (List<String> uris : members.seedUris()) {
			assertThat(uris).hasSize(3);
			seeds.addAll(uris);
		}
		assertThat(seeds).hasSize(9);
		for (RedisCluster cluster : members.clusters()) {
			for (RedisNode node : cluster.nodes()) {
				assertThat((String) node.call("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_known_nodes:3");
			}
		}
	}

	@Test
	void aMasterRestartedWithItsDataKeepsItsKeysAndSlotsAndOneRestartedWithoutLosesTheKeys() {
		RedisCluster cluster = members.cluster(2);
		RedisNode master = cluster.masterFor("{restarted}");
		List<SlotRange> slots = cluster.slotRanges(master);
		String id = cluster.nodeId(master);
		master.call("SET", "{restarted}", "v");
		cluster.restart(master, true);
		assertThat(master.call("GET", "{restarted}")).isEqualTo("v");
		assertThat(cluster.slotRanges(master)).isEqualTo(slots);
		assertThat(master.call("CLUSTER", "MYID")).isEqualTo(id);
		master.kill();
		cluster.restart(master, false);
		assertThat(master.call("GET", "{restarted}")).isNull();
		assertThat(cluster.slotRanges(master)).isEqualTo(slots);
	}

	@Test
	void healingUndoesFaultsAndMigrationsAndDeletesEveryKey() {
		RedisCluster cluster = members.cluster(1);
		Map<RedisNode, List<SlotRange>> layout = cluster.slotRanges();
		List<RedisNode> masters = cluster.masters();
		cluster.masterFor("{kept}").call("SET", "{kept}", "v");
		cluster.migrate(new SlotRange(100, 104), masters.get(1));
		cluster.beginMigration(6000, masters.get(2)).moveKeys(10);
		masters.get(2).pause();
		masters.get(0).kill();
		cluster.heal();
		assertThat(cluster.slotRanges()).isEqualTo(layout);
		for (RedisNode master : masters) {
			assertThat(master.isRunning()).isTrue();
			assertThat(master.isPaused()).isFalse();
			assertThat(master.call("DBSIZE")).isEqualTo(0L);
			assertThat((String) master.call("CLUSTER", "NODES")).doesNotContain("[");
		}
	}

}
