package io.github.redlock.engine.node;

import java.util.concurrent.TimeUnit;

import io.github.redlock.embedded.RedisCluster;
import io.github.redlock.embedded.RedisClusterExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.OwnerChange.Master;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The owner stamp against a real cluster of 3 masters with a replica each: it moves with
 * its slot, a migration is read as one, and a replica promoted over its master, by
 * takeover or after the master was killed, is read as a failover.
 */
class OwnerChangeIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension clusters = RedisClusterExtension.clusters(1).masters(3).replicas(1);

	private static final String KEY = "redlock:owner:{order-1}";

	private static final RedisClient client = RedisClient.create();

	@AfterAll
	static void shutdown() {
		client.shutdown();
	}

	@Test
	void aSlotCheckedAgainOnItsMasterIsUnchanged() throws Exception {
		RedisCluster cluster = clusters.cluster(0);
		RedisNode owner = cluster.masterFor(KEY);
		stamp(owner);
		assertThat(judge(owner)).isEqualTo(OwnerChange.UNCHANGED);
	}

	@Test
	void theStampMovesWithItsSlotAndAMigrationIsReadAsOne() throws Exception {
		RedisCluster cluster = clusters.cluster(0);
		RedisNode source = cluster.masterFor(KEY);
		stamp(source);
		RedisNode target = cluster.masters().stream().filter((master) -> master != source).findFirst().orElseThrow();
		cluster.migrate(RedisCluster.slot(KEY), target);
		assertThat(cluster.masterFor(KEY)).isSameAs(target);
		assertThat(judge(target)).isEqualTo(OwnerChange.MIGRATED);
	}

	@Test
	void aTakeoverIsReadAsAFailover() throws Exception {
		RedisCluster cluster = clusters.cluster(0);
		RedisNode master = cluster.masterFor(KEY);
		stamp(master);
		assertThat(master.call("WAIT", "1", "10000")).isEqualTo(1L);
		RedisNode replica = cluster.replicasOf(master).get(0);
		cluster.takeover(replica);
		assertThat(cluster.masterFor(KEY)).isSameAs(replica);
		assertThat(judge(replica)).isEqualTo(OwnerChange.FAILED_OVER);
	}

	@Test
	void aPromotionAfterTheMasterWasKilledIsReadAsAFailover() throws Exception {
		RedisCluster cluster = clusters.cluster(0);
		RedisNode master = cluster.masterFor(KEY);
		stamp(master);
		assertThat(master.call("WAIT", "1", "10000")).isEqualTo(1L);
		RedisNode promoted = cluster.killMasterAndAwaitPromotion(master);
		assertThat(judge(promoted)).isEqualTo(OwnerChange.FAILED_OVER);
	}

	/** Writes the stamp of the master that owns the key's slot, as its check does. */
	private static void stamp(RedisNode master) throws Exception {
		try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(master.uri()))) {
			Master self = Master.read(connection.async()).get(10, TimeUnit.SECONDS);
			connection.sync().set(KEY, self.stamp());
		}
	}

	/** Judges the key's slot on its master now, from what that master says. */
	private static OwnerChange judge(RedisNode master) throws Exception {
		try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(master.uri()))) {
			Master self = Master.read(connection.async()).get(10, TimeUnit.SECONDS);
			String stamp = connection.sync().get(KEY);
			assertThat(stamp).as("the stamp on " + master).isNotNull();
			return OwnerChange.judge(stamp, true, self, ClusterPartitionParser.parse(connection.sync().clusterNodes()));
		}
	}

}
