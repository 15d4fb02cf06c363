package io.github.redlock.torture;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.redlock.embedded.RedisCluster;
import io.github.redlock.embedded.RedisClusterExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.embedded.SlotRange;
import io.github.redlock.torture.TortureChecker.Report;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The torture run on a quorum of three Redis Clusters of three masters with a replica
 * each (issue 36): client JVMs take the torture's mix of exclusive locks, read-write
 * locks and a semaphore, with the restart guard on, while a nemesis promotes replicas
 * with {@code CLUSTER FAILOVER TAKEOVER} (on one member or on two, a quorum) and deletes
 * from the promoted master the lock state of a key its former master held (the writes
 * asynchronous replication had not carried yet), kills masters so that their replicas
 * take over, and moves the slots of the keys to other masters. The strict checker judges
 * every section and write. That the promoted masters' guard is what keeps them out is
 * shown by {@code ClusterFailoverIntegrationTests}, where an engine that takes a failover
 * for a migration lets second holders in.
 */
class ClusterTortureIntegrationTests {

	private static final Duration DURATION = Duration
		.parse(System.getProperty("redlock.cluster-torture.duration", "PT15S"));

	/**
	 * Leases long enough to outlast a member's seeing a failover, so that a lock lost in
	 * one is still valid when a second client could get in.
	 */
	private static final Duration TTL = Duration.ofSeconds(3);

	private static final Duration MAX_TTL = Duration.ofSeconds(4);

	@RegisterExtension
	static final RedisClusterExtension clusters = RedisClusterExtension.clusters(3).masters(3).replicas(1);

	private static final List<String> KEYS = keys();

	private static List<String> keys() {
		List<String> keys = new ArrayList<>(List.of(TortureStore.READ_WRITE_KEY, TortureStore.SEMAPHORE_KEY));
		for (int k = 0; k < TortureIntegrationTests.KEYS; k++) {
			keys.add("k" + k);
		}
		return List.copyOf(keys);
	}

	@Test
	void mutualExclusionAndFencingHoldUnderClusterFaults(@TempDir Path directory) throws Exception {
		try (RedisNode store = RedisNode.start("cluster-store")) {
			Report report = run(directory, store, "cluster-mix");
			assertThat(report.byKind()).allSatisfy((kind, found) -> assertThat(found).as(kind).isEmpty());
			assertThat(report.validSections).isGreaterThan(15);
		}
	}

	private Report run(Path directory, RedisNode store, String plan) throws Exception {
		Random random = new Random(TortureIntegrationTests.SEED);
		// brand-new clusters sit out the maximum TTL once
		Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
		TortureIntegrationTests.Clients clients = TortureIntegrationTests.Clients.startOnClusters(directory,
				nodesArgument(), store, plan, TTL, MAX_TTL);
		Map<String, Integer> faults = new TreeMap<>();
		long end = System.nanoTime() + DURATION.toNanos();
		while (System.nanoTime() - end < 0) {
			Thread.sleep(1000 + random.nextInt(1500));
			String key = KEYS.get(random.nextInt(KEYS.size()));
			int fault = random.nextInt(4);
			switch (fault) {
				case 0, 1 -> {
					// a takeover on a quorum of members, or on one
					int members = (fault == 0) ? 2 : 1;
					int first = random.nextInt(3);
					List<RedisNode> promoted = Collections.synchronizedList(new ArrayList<>());
					List<Thread> takeovers = new ArrayList<>();
					for (int m = 0; m < members; m++) {
						RedisCluster cluster = clusters.cluster((first + m) % 3);
						Thread thread = new Thread(() -> promoted.addAll(takeover(cluster, key)));
						thread.start();
						takeovers.add(thread);
					}
					for (Thread takeover : takeovers) {
						takeover.join();
					}
					// on every member promoted at once: what replication had not carried
					promoted.forEach((node) -> forget(node, key));
					// and again once the clients could have seen the promotions (a view's
					// refresh, then the master's check): an engine that trusted the
					// promoted masters at once has granted the key there by now, and its
					// holder loses it on a quorum of members
					Thread.sleep(1500);
					promoted.forEach((node) -> forget(node, key));
					count(faults, "takeover losing a key's lock on " + members + " member(s)");
				}
				case 2 -> {
					RedisCluster cluster = clusters.cluster(random.nextInt(3));
					RedisNode master = cluster.masterFor("{" + key + "}");
					RedisNode promoted = cluster.killMasterAndAwaitPromotion(master);
					forget(promoted, key);
					master.start();
					cluster.awaitHealthy();
					count(faults, "master killed, its replica promoted, restarted as a replica");
				}
				default -> {
					RedisCluster cluster = clusters.cluster(random.nextInt(3));
					int slot = RedisCluster.slot("{" + key + "}");
					RedisNode owner = cluster.ownerOf(slot);
					List<RedisNode> others = new ArrayList<>(cluster.masters());
					others.remove(owner);
					cluster.migrate(SlotRange.of(slot), others.get(random.nextInt(others.size())));
					count(faults, "a key's slot moved to another master under load");
				}
			}
		}
		// let promoted masters through their guard before the clients stop
		Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
		Path history = Path.of("target", "cluster-torture-history-" + TortureIntegrationTests.SEED + ".jsonl");
		Report report = clients.stop(store, history);
		System.out.println("CLUSTER TORTURE SUMMARY plan=" + plan + " seed=" + TortureIntegrationTests.SEED
				+ " clients=" + TortureIntegrationTests.CLIENTS + "\n  faults injected: " + faults + "\n  clients: "
				+ clients.results + "\n  history: " + history.toAbsolutePath() + " (" + History.read(history).tally()
				+ ")\n" + report.summary());
		if (report.violations() > 0) {
			clients.keepLogs(Path.of("target", "cluster-torture-logs-" + TortureIntegrationTests.SEED));
		}
		assertThat(faults.values().stream().mapToInt(Integer::intValue).sum()).as("faults injected: %s", faults)
			.isGreaterThanOrEqualTo(3);
		return report;
	}

	/**
	 * Promotes the replica of the master of {@code key}'s slot at once, without its
	 * catching up.
	 * @return the promoted replica, or nothing if that master had no running replica
	 */
	private static List<RedisNode> takeover(RedisCluster cluster, String key) {
		RedisNode master = cluster.masterFor("{" + key + "}");
		List<RedisNode> replicas = cluster.replicasOf(master).stream().filter(RedisNode::isRunning).toList();
		if (replicas.isEmpty()) {
			return List.of();
		}
		cluster.takeover(replicas.get(0));
		return List.of(replicas.get(0));
	}

	/**
	 * Deletes the key's lock state from a promoted master: what asynchronous replication
	 * had not carried from its former master, or what it was given since and would have
	 * been given only after the restart guard's time, had the engine seen the failover.
	 */
	private static void forget(RedisNode promoted, String key) {
		String tag = "{" + key + "}";
		for (String kind : List.of("lock:", "readers:", "writer:", "permits:", "permit-expiries:")) {
			promoted.call("DEL", "redlock:" + kind + tag);
		}
	}

	private static void count(Map<String, Integer> faults, String fault) {
		faults.merge(fault, 1, Integer::sum);
	}

	/** Each member's seeds, as {@link TortureClient} reads cluster members. */
	private static String nodesArgument() {
		return TortureClient.CLUSTERS + clusters.clusters()
			.stream()
			.map((cluster) -> String.join("|", cluster.seedUris()))
			.collect(Collectors.joining(";"));
	}

}
