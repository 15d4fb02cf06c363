package io.github.redlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisClusterIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension clusters = RedisClusterExtension.clusters(1).masters(3).replicas(1);

	@Test
	void everyServerReportsOkAndTheMastersSplitTheSlotsEvenly() {
		RedisCluster cluster = clusters.cluster(0);
		assertThat(cluster.seedUris()).hasSize(6)
			.doesNotHaveDuplicates()
			.allMatch((uri) -> uri.startsWith("redis://127.0.0.1:"));
		for (RedisNode node : cluster.nodes()) {
			assertThat((String) node.call("CLUSTER", "INFO")).contains("cluster_state:ok",
					"cluster_slots_assigned:16384", "cluster_slots_ok:16384", "cluster_known_nodes:6");
		}
		List<RedisNode> masters = cluster.masters();
		assertThat(masters).containsExactlyElementsOf(cluster.nodes().subList(0, 3));
		assertThat(cluster.slotRanges().values()).containsExactly(List.of(new SlotRange(0, 5460)),
				List.of(new SlotRange(5461, 10921)), List.of(new SlotRange(10922, 16383)));
		for (int i = 0; i < 3; i++) {
			RedisNode replica = cluster.nodes().get(3 + i);
			assertThat(cluster.replicasOf(masters.get(i))).containsExactly(replica);
			assertThat(cluster.masterOf(replica)).contains(masters.get(i));
			assertThat(cluster.masterOf(masters.get(i))).isEmpty();
		}
	}

	@Test
	void theFixtureComputesTheSlotsTheServersCompute() {
		RedisNode node = clusters.cluster(0).nodes().get(0);
		for (int i = 0; i < 200; i++) {
			for (String key : List.of("lock:" + i, "{order-" + i + "}.fence", "a{" + i + "}b{c}", "x{}" + i, "é" + i)) {
				assertThat(node.call("CLUSTER", "KEYSLOT", key)).as(key).isEqualTo((long) ClusterSlots.slot(key));
			}
		}
	}

	@Test
	void theOwnerOfAKeysSlotServesItAndTheOtherMastersAnswerMoved() {
		RedisCluster cluster = clusters.cluster(0);
		String key = "greeting";
		RedisNode owner = cluster.masterFor(key);
		assertThat(owner.call("SET", key, "hello")).isEqualTo("OK");
		assertThat(owner.call("GET", key)).isEqualTo("hello");
		for (RedisNode other : cluster.masters()) {
			if (other != owner) {
				assertThatThrownBy(() -> other.call("GET", key))
					.hasRootCauseMessage("MOVED " + RedisCluster.slot(key) + " 127.0.0.1:" + owner.port());
			}
		}
	}

	@Test
	void takeoverMakesTheReplicaTheOwnerOfItsMastersSlots() {
		RedisCluster cluster = clusters.cluster(0);
		RedisNode master = cluster.master(1);
		RedisNode replica = cluster.replicasOf(master).get(0);
		List<SlotRange> slots = cluster.slotRanges(master);
		String key = keyOwnedBy(cluster, master);
		master.call("SET", key, "before");
		assertThat(master.call("WAIT", "1", "10000")).isEqualTo(1L);
		cluster.takeover(replica);
		assertThat(cluster.slotRanges(replica)).isEqualTo(slots);
		assertThat(cluster.master(1)).isSameAs(replica);
		assertThat(cluster.masterOf(master)).contains(replica);
		assertThat(replica.call("GET", key)).isEqualTo("before");
		assertThatThrownBy(() -> master.call("GET", key))
			.hasRootCauseMessage("MOVED " + RedisCluster.slot(key) + " 127.0.0.1:" + replica.port());
	}

	@Test
	void killingAMasterPromotesItsReplicaAndTheMasterComesBackAsItsReplica() {
		RedisCluster cluster = clusters.cluster(0);
		RedisNode master = cluster.master(2);
		RedisNode replica = cluster.replicasOf(master).get(0);
		String key = keyOwnedBy(cluster, master);
		RedisNode promoted = cluster.killMasterAndAwaitPromotion(master);
		assertThat(promoted).isSameAs(replica);
		assertThat(master.isRunning()).isFalse();
		assertThat(cluster.masterFor(key)).isSameAs(replica);
		assertThat(replica.call("SET", key, "after")).isEqualTo("OK");
		cluster.restart(master, false);
		assertThat(cluster.masterOf(master)).contains(replica);
		assertThat(cluster.masterFor(key)).isSameAs(replica);
	}

	@Test
	void migratingASlotMovesItsKeysAndTheNewOwnerServesThem() {
		RedisCluster cluster = clusters.cluster(0);
		int slot = RedisCluster.slot("{moving}");
		RedisNode source = cluster.ownerOf(slot);
		RedisNode target = otherMaster(cluster, source);
		for (int i = 0; i < 250; i++) {
			source.call("SET", "{moving}." + i, "v" + i);
		}
		cluster.migrate(slot, target);
		assertThat(cluster.ownerOf(slot)).isSameAs(target);
		assertThat(target.call("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot))).isEqualTo(250L);
		assertThat(target.call("GET", "{moving}.249")).isEqualTo("v249");
		assertThat(source.call("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot))).isEqualTo(0L);
		assertThatThrownBy(() -> source.call("GET", "{moving}.0"))
			.hasRootCauseMessage("MOVED " + slot + " 127.0.0.1:" + target.port());
	}

	@Test
	void migratingASlotWhileAClientWritesToItLosesNoWrite() throws Exception {
		RedisCluster cluster = clusters.cluster(0);
		int slot = RedisCluster.slot("{load}");
		RedisNode source = cluster.ownerOf(slot);
		RedisNode target = otherMaster(cluster, source);
		Map<String, String> written = new ConcurrentHashMap<>();
		AtomicBoolean stop = new AtomicBoolean();
		CountDownLatch writing = new CountDownLatch(100);
		CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
			RedisNode owner = source;
			for (int i = 0; !stop.get(); i++) {
				String key = "{load}." + (i % 400);
				owner = setFollowingRedirects(owner, target, key, "v" + i);
				written.put(key, "v" + i);
				writing.countDown();
			}
		});
		assertThat(writing.await(30, TimeUnit.SECONDS)).isTrue();
		cluster.migrate(slot, target);
		stop.set(true);
		writer.get(30, TimeUnit.SECONDS);
		assertThat(target.call("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot))).isEqualTo((long) written.size());
		written.forEach((key, value) -> assertThat(target.call("GET", key)).as(key).isEqualTo(value));
	}

	/**
	 * Sets a key as a cluster client does during a migration: at the node it believes
	 * owns the slot, following ASK once and MOVED for good. Returns the owner it believes
	 * in afterwards.
	 */
	private static RedisNode setFollowingRedirects(RedisNode owner, RedisNode target, String key, String value) {
		try (RespConnection connection = new RespConnection(owner.port(), 10_000)) {
			connection.call("SET", key, value);
			return owner;
		}
		catch (RespConnection.RespErrorException ex) {
			if (ex.getMessage().startsWith("ASK ")) {
				try (RespConnection connection = new RespConnection(target.port(), 10_000)) {
					connection.call("ASKING");
					connection.call("SET", key, value);
					return owner;
				}
				catch (IOException asked) {
					throw new UncheckedIOException(asked);
				}
			}
			assertThat(ex.getMessage()).startsWith("MOVED " + RedisCluster.slot(key) + " 127.0.0.1:" + target.port());
			return setFollowingRedirects(target, target, key, value);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Test
	void aSlotMidMigrationRedirectsWithAskAndTryagain() throws Exception {
		RedisCluster cluster = clusters.cluster(0);
		int slot = RedisCluster.slot("{mid}");
		RedisNode source = cluster.ownerOf(slot);
		RedisNode target = otherMaster(cluster, source);
		source.call("SET", "{mid}.stays", "a");
		source.call("SET", "{mid}.moves", "b");
		SlotMigration migration = cluster.beginMigration(slot, target);
		migration.moveKeys("{mid}.moves");
		assertThat(migration.keysAtSource()).containsExactly("{mid}.stays");
		assertThat(source.call("GET", "{mid}.stays")).isEqualTo("a");
		String ask = "ASK " + slot + " 127.0.0.1:" + target.port();
		assertThatThrownBy(() -> source.call("GET", "{mid}.moves")).hasRootCauseMessage(ask);
		assertThatThrownBy(() -> source.call("GET", "{mid}.never")).hasRootCauseMessage(ask);
		// a command on keys split between source and target: Redis 7+ and Valkey answer
		// TRYAGAIN at the source, 6.2 sends it to the target, which answers TRYAGAIN
		assertThatThrownBy(() -> source.call("MGET", "{mid}.stays", "{mid}.moves")).rootCause()
			.message()
			.matches((message) -> message.startsWith("TRYAGAIN") || message.equals(ask));
		assertThatThrownBy(() -> target.call("GET", "{mid}.moves"))
			.hasRootCauseMessage("MOVED " + slot + " 127.0.0.1:" + source.port());
		try (RespConnection connection = new RespConnection(target.port(), 10_000)) {
			connection.call("ASKING");
			assertThat(connection.call("GET", "{mid}.moves")).isEqualTo("b");
			connection.call("ASKING");
			assertThatThrownBy(() -> connection.call("MGET", "{mid}.stays", "{mid}.moves"))
				.hasMessageStartingWith("TRYAGAIN");
		}
		migration.finish();
		assertThat(cluster.ownerOf(slot)).isSameAs(target);
		assertThat(target.call("MGET", "{mid}.stays", "{mid}.moves")).isEqualTo(List.of("a", "b"));
	}

	private static String keyOwnedBy(RedisCluster cluster, RedisNode master) {
		List<SlotRange> slots = cluster.slotRanges(master);
		for (int i = 0;; i++) {
			String key = "key" + i;
			int slot = RedisCluster.slot(key);
			if (slots.stream().anyMatch((range) -> range.contains(slot))) {
				return key;
			}
		}
	}

	private static RedisNode otherMaster(RedisCluster cluster, RedisNode master) {
		return cluster.masters().stream().filter((other) -> other != master).findFirst().orElseThrow();
	}

}
