package io.github.redlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster of real {@code redis-server} processes on loopback ports: a number of
 * masters that split the {@value ClusterSlots#COUNT} hash slots evenly, each with the
 * same number of replicas, with the faults a test needs.
 * <p>
 * The cluster is built by sending commands to each server, as {@code redis-cli --cluster
 * create} would ({@code CLUSTER ADDSLOTS}, {@code CLUSTER MEET}, {@code CLUSTER
 * REPLICATE}), so nothing is needed but the server binary {@link RedisServerBinary}
 * finds: the redis-server 6.2 inside the embedded-redis jar, a later Redis, or Valkey.
 * Each server is a {@link RedisNode}, with its faults ({@link RedisNode#kill() kill},
 * {@link RedisNode#pause() pause}, ...), its cluster configuration file in its own
 * directory, and the same clean-up: it stops when the cluster closes, and with the JVM
 * that started it, even one killed by {@code kill -9}.
 * <p>
 * Roles and slots change with the faults (a replica promoted, a slot migrated), so the
 * methods that answer who is master, who owns a slot, or which replica belongs to which
 * master ask the cluster as one of its running servers sees it at the time of the call.
 * The methods that change the cluster wait until every running server agrees on the
 * change and reports {@code cluster_state:ok}.
 * <p>
 * One piece, longer than most: building the cluster, every fault and the waits for the
 * servers to agree all read and change the same view of roles and slots, and each fault
 * must leave it in a state {@link #heal()} can undo; the slot arithmetic is apart in
 * {@link ClusterSlots}, a migration held mid-way in {@link SlotMigration}.
 *
 * @author redlock contributors
 */
public final class RedisCluster implements AutoCloseable {

	/**
	 * The {@code cluster-node-timeout} unless told otherwise: how long a server may be
	 * unreachable before the others count it as failed, and so roughly how long a
	 * replica's automatic promotion takes. Short, for fast tests, yet long enough that a
	 * loaded machine does not fail a healthy server.
	 */
	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(2000);

	private static final Duration POLL = Duration.ofMillis(50);

	private final String name;

	private final Duration nodeTimeout;

	private final List<RedisNode> nodes;

	private final List<RedisNode> initialMasters;

	private final Map<RedisNode, RedisNode> initialMasterOf;

	private final Map<RedisNode, String> ids = new ConcurrentHashMap<>();

	private final Map<String, RedisNode> byId = new ConcurrentHashMap<>();

	private RedisCluster(String name, Duration nodeTimeout, List<RedisNode> initialMasters,
			Map<RedisNode, RedisNode> initialMasterOf) {
		this.name = name;
		this.nodeTimeout = nodeTimeout;
		this.initialMasters = List.copyOf(initialMasters);
		this.initialMasterOf = Collections.unmodifiableMap(new LinkedHashMap<>(initialMasterOf));
		List<RedisNode> all = new ArrayList<>(initialMasters);
		all.addAll(initialMasterOf.keySet());
		this.nodes = List.copyOf(all);
	}

	/**
	 * Starts a cluster with the {@link #DEFAULT_NODE_TIMEOUT default node timeout}.
	 * @param masters how many masters, at least 1; automatic promotion needs at least 3,
	 * since a majority of the masters must agree that one has failed
	 * @param replicasPerMaster how many replicas each master has, 0 or more
	 * @return the running cluster, every slot served and every server in agreement
	 */
	public static RedisCluster start(int masters, int replicasPerMaster) {
		return start("cluster", masters, replicasPerMaster, DEFAULT_NODE_TIMEOUT);
	}

	/**
	 * Starts a cluster: its servers in parallel, then the slots split evenly in order
	 * among the masters, then the replicas attached, the first {@code replicasPerMaster}
	 * to the first master and so on.
	 * @param name a name for the servers' logs and directories, such as {@code c0}
	 * @param masters how many masters, at least 1; automatic promotion needs at least 3,
	 * since a majority of the masters must agree that one has failed
	 * @param replicasPerMaster how many replicas each master has, 0 or more
	 * @param nodeTimeout the servers' {@code cluster-node-timeout}
	 * @return the running cluster, every slot served and every server in agreement
	 */
	public static RedisCluster start(String name, int masters, int replicasPerMaster, Duration nodeTimeout) {
		if (masters < 1 || replicasPerMaster < 0) {
			throw new IllegalArgumentException(
					"A cluster needs at least one master and no negative number of replicas, not " + masters
							+ " masters with " + replicasPerMaster + " replicas each");
		}
		if (nodeTimeout.toMillis() < 100) {
			throw new IllegalArgumentException("A node timeout under 100 ms fails healthy servers, not " + nodeTimeout);
		}
		RedisServerBinary binary = RedisServerBinary.get();
		Function<Path, List<String>> options = (directory) -> List.of("--cluster-enabled", "yes",
				"--cluster-config-file", directory.resolve("nodes.conf").toString(), "--cluster-node-timeout",
				String.valueOf(nodeTimeout.toMillis()),
				// a replica promotes itself however long it has been cut off from its
				// master: tests kill masters on purpose
				"--cluster-replica-validity-factor", "0",
				// replicas stay with the master they were given, for predictable tests
				"--cluster-migration-barrier", "1000",
				// a replica's full sync starts at once rather than after 5 s (Redis 7+)
				"--repl-diskless-sync-delay", "0");
		List<RedisNode> masterNodes = new ArrayList<>();
		Map<RedisNode, RedisNode> replicaNodes = new LinkedHashMap<>();
		for (int i = 0; i < masters; i++) {
			masterNodes.add(new RedisNode(name + "-m" + i, binary, null, options, RedisCluster::freePortPair));
		}
		for (int i = 0; i < masters; i++) {
			for (int j = 0; j < replicasPerMaster; j++) {
				replicaNodes.put(
						new RedisNode(name + "-m" + i + "r" + j, binary, null, options, RedisCluster::freePortPair),
						masterNodes.get(i));
			}
		}
		RedisCluster cluster = new RedisCluster(name, nodeTimeout, masterNodes, replicaNodes);
		try {
			CompletableFuture
				.allOf(cluster.nodes.stream()
					.map((node) -> CompletableFuture.runAsync(node::start))
					.toArray(CompletableFuture[]::new))
				.join();
			cluster.form();
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
		return cluster;
	}

	/**
	 * Returns a free loopback port whose cluster bus port, 10000 above it (Redis 6.2 has
	 * no {@code cluster-port} option to choose another), is free too; both are below the
	 * usual ephemeral range, so that no outgoing connection takes either while the server
	 * is down.
	 */
	private static int freePortPair() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = 10000 + ThreadLocalRandom.current().nextInt(12000);
			if (isFree(port) && isFree(port + 10000)) {
				return port;
			}
		}
		throw new IllegalStateException("Found no free loopback port P with P + 10000 free too, below 32000");
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
			return socket.isBound();
		}
		catch (IOException ex) {
			return false;
		}
	}

	private void form() {
		try (NodeLinks links = new NodeLinks()) {
			for (RedisNode node : this.nodes) {
				String id = (String) links.call(node, "CLUSTER", "MYID");
				this.ids.put(node, id);
				this.byId.put(id, node);
			}
			// distinct epochs from the start, as redis-cli gives them, rather than a
			// round of collisions to settle
			for (int i = 0; i < this.nodes.size(); i++) {
				links.call(this.nodes.get(i), "CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
			}
			for (int i = 0; i < this.initialMasters.size(); i++) {
				SlotRange range = initialRange(i);
				List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
				for (int slot = range.first(); slot <= range.last(); slot++) {
					command.add(String.valueOf(slot));
				}
				// ADDSLOTS rather than ADDSLOTSRANGE, which Redis 6.2 lacks
				links.call(this.initialMasters.get(i), command.toArray(String[]::new));
			}
			// every pair meets directly: gossip alone takes seconds to spread the news
			for (int i = 0; i < this.nodes.size(); i++) {
				for (RedisNode other : this.nodes.subList(i + 1, this.nodes.size())) {
					links.call(this.nodes.get(i), "CLUSTER", "MEET", "127.0.0.1", String.valueOf(other.port()));
				}
			}
		}
		await("every server to know every other", () -> {
			try (NodeLinks links = new NodeLinks()) {
				for (RedisNode node : this.nodes) {
					ClusterView view = ClusterView.read(links, node);
					for (RedisNode other : this.nodes) {
						if (view.member(nodeId(other))
							.filter((member) -> !member.flags().contains("handshake"))
							.isEmpty()) {
							return node.name() + " does not know " + other.name() + " yet";
						}
					}
				}
				return null;
			}
		});
		try (NodeLinks links = new NodeLinks()) {
			this.initialMasterOf
				.forEach((replica, master) -> links.call(replica, "CLUSTER", "REPLICATE", nodeId(master)));
		}
		awaitHealthy();
	}

	private SlotRange initialRange(int masterIndex) {
		int masters = this.initialMasters.size();
		return new SlotRange(ClusterSlots.COUNT * masterIndex / masters,
				ClusterSlots.COUNT * (masterIndex + 1) / masters - 1);
	}

	/**
	 * Returns the slot of a key, as the servers compute it.
	 * @param key the key
	 * @return its slot
	 * @see ClusterSlots#slot(String)
	 */
	public static int slot(String key) {
		return ClusterSlots.slot(key);
	}

	/**
	 * Returns the cluster's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the servers' {@code cluster-node-timeout}.
	 * @return the node timeout
	 */
	public Duration nodeTimeout() {
		return this.nodeTimeout;
	}

	/**
	 * Returns every server, whatever its role now: the masters it started with, in slot
	 * order, then their replicas, master by master.
	 * @return the servers
	 */
	public List<RedisNode> nodes() {
		return this.nodes;
	}

	/**
	 * Returns the seed URIs a cluster client starts from, such as
	 * {@code redis://127.0.0.1:6379}: one per server, in the order of {@link #nodes()}.
	 * @return the URIs
	 */
	public List<String> seedUris() {
		return this.nodes.stream().map(RedisNode::uri).toList();
	}

	/**
	 * Returns a server's cluster node id, which it keeps across restarts.
	 * @param node one of the cluster's servers
	 * @return its id
	 */
	public String nodeId(RedisNode node) {
		String id = this.ids.get(node);
		if (id == null) {
			throw new IllegalArgumentException(node + " is not a server of cluster " + this.name);
		}
		return id;
	}

	/**
	 * Returns the masters now: those that serve slots in the order of their first slot
	 * (so a promoted replica takes its former master's place), then any that serve none.
	 * @return the masters
	 */
	public List<RedisNode> masters() {
		return view().masters().stream().map(ClusterView.Member::id).map(this::node).toList();
	}

	/**
	 * Returns one master now, in the order of {@link #masters()}.
	 * @param index its index, from 0
	 * @return the master
	 */
	public RedisNode master(int index) {
		return masters().get(index);
	}

	/**
	 * Returns the replicas of a master now.
	 * @param master one of the cluster's masters
	 * @return its replicas, empty if it has none or is not a master
	 */
	public List<RedisNode> replicasOf(RedisNode master) {
		return view().replicasOf(nodeId(master)).stream().map(ClusterView.Member::id).map(this::node).toList();
	}

	/**
	 * Returns the master a server replicates now.
	 * @param replica one of the cluster's servers
	 * @return its master, or empty if it is a master itself
	 */
	public Optional<RedisNode> masterOf(RedisNode replica) {
		return view().member(nodeId(replica))
			.filter((member) -> !member.isMaster())
			.map((member) -> node(member.masterId()));
	}

	/**
	 * Returns the slots a master serves now.
	 * @param master one of the cluster's servers
	 * @return its slot ranges, in order, empty if it serves none
	 */
	public List<SlotRange> slotRanges(RedisNode master) {
		return view().member(nodeId(master))
			.filter(ClusterView.Member::isMaster)
			.map((member) -> ClusterView.ranges(member.slots()))
			.orElse(List.of());
	}

	/**
	 * Returns the slots of each master now, in the order of {@link #masters()}.
	 * @return the slot ranges by master
	 */
	public Map<RedisNode, List<SlotRange>> slotRanges() {
		Map<RedisNode, List<SlotRange>> ranges = new LinkedHashMap<>();
		for (ClusterView.Member master : view().masters()) {
			ranges.put(node(master.id()), ClusterView.ranges(master.slots()));
		}
		return ranges;
	}

	/**
	 * Returns the master that owns a slot now.
	 * @param slot the slot
	 * @return its owner
	 * @throws IllegalStateException if no master owns it
	 */
	public RedisNode ownerOf(int slot) {
		return ownerOf(view(), slot);
	}

	private RedisNode ownerOf(ClusterView view, int slot) {
		String owner = view.owner(slot);
		if (owner == null) {
			throw new IllegalStateException("No master of cluster " + this.name + " owns slot " + slot);
		}
		return node(owner);
	}

	/**
	 * Returns the master that owns a key's slot now: the one that serves the key rather
	 * than answering {@code MOVED}.
	 * @param key the key
	 * @return its master
	 */
	public RedisNode masterFor(String key) {
		return ownerOf(ClusterSlots.slot(key));
	}

	/**
	 * Restarts a server on the same port, as {@link RedisNode#restart(boolean)} does, and
	 * waits until the cluster is whole again. A killed server is started again; it keeps
	 * its node id, and a former master whose replica was promoted meanwhile comes back as
	 * a replica of it.
	 * @param node one of the cluster's servers
	 * @param keepData {@code true} for a clean restart that keeps every key (the server
	 * must be running), {@code false} for one that loses them all
	 */
	public void restart(RedisNode node, boolean keepData) {
		nodeId(node);
		node.restart(keepData);
		awaitHealthy();
	}

	/**
	 * Kills a master that has a replica with SIGKILL and waits until one of its replicas
	 * has promoted itself (after the {@link #nodeTimeout() node timeout} and an
	 * election), serves the master's slots and every running server agrees. The killed
	 * master stays down until {@link #restart(RedisNode, boolean) restarted} or
	 * {@link #heal() healed}.
	 * @param master a master with at least one running replica
	 * @return the promoted replica
	 */
	public RedisNode killMasterAndAwaitPromotion(RedisNode master) {
		String masterId = nodeId(master);
		ClusterView before = view();
		Set<String> replicas = before.replicasOf(masterId)
			.stream()
			.map(ClusterView.Member::id)
			.filter((id) -> isLive(node(id)))
			.collect(Collectors.toSet());
		if (replicas.isEmpty()) {
			throw new IllegalStateException(
					master + " is not a master with a running replica: nothing would take over");
		}
		List<SlotRange> slots = slotRanges(master);
		master.kill();
		return awaitPromotion(replicas, slots, "a replica of " + master.name() + " to take over its slots");
	}

	/**
	 * Promotes a replica with {@code CLUSTER FAILOVER TAKEOVER}: at once, without the
	 * agreement of the other masters nor waiting for the replica to catch up with its
	 * master (writes not yet replicated are lost). Waits until every running server
	 * agrees that it owns its former master's slots and the former master replicates it.
	 * @param replica a replica
	 */
	public void takeover(RedisNode replica) {
		promote(replica, "TAKEOVER");
	}

	/**
	 * Promotes a replica with a manual {@code CLUSTER FAILOVER}: the master stops writes,
	 * the replica catches up and takes over with the agreement of the masters, losing
	 * nothing. Waits until every running server agrees that it owns its former master's
	 * slots.
	 * @param replica a replica whose master runs
	 */
	public void failover(RedisNode replica) {
		promote(replica, null);
	}

	private void promote(RedisNode replica, @Nullable String option) {
		String masterId = view().member(nodeId(replica))
			.filter((member) -> !member.isMaster())
			.map(ClusterView.Member::masterId)
			.orElseThrow(() -> new IllegalStateException(replica + " is not a replica"));
		List<SlotRange> slots = slotRanges(node(masterId));
		if (option != null) {
			replica.call("CLUSTER", "FAILOVER", option);
		}
		else {
			replica.call("CLUSTER", "FAILOVER");
		}
		awaitPromotion(Set.of(nodeId(replica)), slots, replica.name() + " to take over its master's slots");
	}

	private RedisNode awaitPromotion(Set<String> candidates, List<SlotRange> slots, String what) {
		String[] promoted = new String[1];
		awaitHealthy(what, (view) -> {
			for (String candidate : candidates) {
				Optional<ClusterView.Member> member = view.member(candidate);
				if (member.isPresent() && member.get().isMaster()
						&& ClusterView.ranges(member.get().slots()).containsAll(slots)) {
					promoted[0] = candidate;
					return true;
				}
			}
			return false;
		});
		return node(promoted[0]);
	}

	/**
	 * Moves one slot to another master, keys and all, and waits until every running
	 * server agrees.
	 * @param slot the slot
	 * @param target the master that gets it
	 * @see #beginMigration(int, RedisNode)
	 */
	public void migrate(int slot, RedisNode target) {
		migrate(SlotRange.of(slot), target);
	}

	/**
	 * Moves a range of slots to another master, slot by slot, keys and all, the way
	 * {@code redis-cli --cluster reshard} does, and waits until every running server
	 * agrees. Clients may keep writing meanwhile. Slots the target owns already are
	 * skipped.
	 * @param slots the slots, from any master or several
	 * @param target the master that gets them
	 * @see #beginMigration(int, RedisNode)
	 */
	public void migrate(SlotRange slots, RedisNode target) {
		nodeId(target);
		try (NodeLinks links = new NodeLinks()) {
			ClusterView view = view(links);
			for (int slot = slots.first(); slot <= slots.last(); slot++) {
				RedisNode source = ownerOf(view, slot);
				if (source != target) {
					SlotMigration migration = new SlotMigration(this, slot, source, target);
					migration.begin(links);
					migration.finish(links);
				}
			}
		}
		awaitHealthy();
	}

	/**
	 * Starts to move a slot to another master and leaves it in the middle: the source
	 * {@code MIGRATING}, the target {@code IMPORTING}, no key moved yet. The test moves
	 * keys and {@link SlotMigration#finish() finishes} the migration when it wants;
	 * {@link #heal()} ends one left unfinished.
	 * @param slot the slot
	 * @param target the master that is to get it
	 * @return the migration under way
	 */
	public SlotMigration beginMigration(int slot, RedisNode target) {
		RedisNode source = ownerOf(slot);
		nodeId(target);
		if (source == target) {
			throw new IllegalArgumentException(target + " owns slot " + slot + " already");
		}
		SlotMigration migration = new SlotMigration(this, slot, source, target);
		try (NodeLinks links = new NodeLinks()) {
			migration.begin(links);
		}
		return migration;
	}

	/**
	 * Waits until the cluster is whole for its running servers (paused ones do not
	 * count): each reports {@code cluster_state:ok}, all agree on who owns which slot and
	 * who replicates whom, none sees another running server as failing or unreachable,
	 * and each running replica of a running master has its replication link up.
	 * @throws IllegalStateException if that does not happen within a while, saying what
	 * is still wrong
	 */
	public void awaitHealthy() {
		awaitHealthy("the cluster to be whole", (view) -> true);
	}

	private void awaitHealthy(String what, Predicate<ClusterView> condition) {
		await(what, () -> {
			try (NodeLinks links = new NodeLinks()) {
				return unhealthy(links, condition);
			}
		});
	}

	/**
	 * Returns what keeps the cluster from being whole, or {@code null} if nothing does.
	 */
	private @Nullable String unhealthy(NodeLinks links, Predicate<ClusterView> condition) {
		List<RedisNode> live = this.nodes.stream().filter(this::isLive).toList();
		Set<String> liveIds = live.stream().map(this::nodeId).collect(Collectors.toSet());
		List<ClusterView> views = new ArrayList<>();
		for (RedisNode node : live) {
			ClusterView view;
			try {
				view = ClusterView.read(links, node);
			}
			catch (UncheckedIOException ex) {
				return node.name() + " does not answer: " + ex.getMessage();
			}
			if (!view.ok()) {
				return node.name() + " does not report cluster_state:ok";
			}
			for (RedisNode other : live) {
				Optional<ClusterView.Member> member = view.member(nodeId(other));
				if (member.isEmpty() || !member.get().isHealthy()) {
					return node.name() + " sees " + other.name() + " as "
							+ member.map((found) -> found.flags() + (found.connected() ? "" : ", disconnected"))
								.orElse("unknown");
				}
			}
			if (!condition.test(view)) {
				return node.name() + " does not see it yet";
			}
			if (!views.isEmpty() && !views.get(0).topology(liveIds).equals(view.topology(liveIds))) {
				return views.get(0).observer().name() + " and " + node.name() + " disagree:\n"
						+ views.get(0).topology(liveIds) + "\nversus\n" + view.topology(liveIds);
			}
			views.add(view);
		}
		for (RedisNode node : live) {
			Optional<ClusterView.Member> member = views.get(0).member(nodeId(node));
			if (member.isPresent() && !member.get().isMaster() && isLive(node(member.get().masterId()))) {
				String replication = (String) links.call(node, "INFO", "replication");
				if (!replication.contains("master_link_status:up")) {
					return node.name() + " is not in sync with its master yet";
				}
			}
		}
		return null;
	}

	private void await(String what, Supplier<String> problem) {
		Duration timeout = Duration.ofSeconds(30).plus(this.nodeTimeout.multipliedBy(10));
		long deadline = System.nanoTime() + timeout.toNanos();
		String last = problem.get();
		while (last != null) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Waited " + timeout.toSeconds() + "s for " + what + " in cluster "
						+ this.name + ", in vain: " + last);
			}
			try {
				Thread.sleep(POLL.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
			last = problem.get();
		}
	}

	/**
	 * Undoes every fault and brings the cluster back to how it started, empty: undoes the
	 * faults as {@link #undoFaults()} does, ends unfinished slot migrations, deletes
	 * every key, gives each master it started with its role and slots back (and each
	 * replica its master), and waits until the cluster is whole.
	 */
	public void heal() {
		undoFaults();
		try (NodeLinks links = new NodeLinks()) {
			for (RedisNode node : this.nodes) {
				ClusterView view = ClusterView.read(links, node);
				// Valkey 8 copies these states to the replicas, and ends them there when
				// their master does; a replica refuses SETSLOT
				if (view.member(nodeId(node)).map(ClusterView.Member::isMaster).orElse(false)) {
					for (int slot : view.migrating().keySet()) {
						links.call(node, "CLUSTER", "SETSLOT", String.valueOf(slot), "STABLE");
					}
					for (int slot : view.importing().keySet()) {
						links.call(node, "CLUSTER", "SETSLOT", String.valueOf(slot), "STABLE");
					}
				}
			}
		}
		flushAll();
		restoreRoles();
		restoreSlots();
		awaitHealthy();
	}

	private void restoreRoles() {
		for (RedisNode master : this.initialMasters) {
			if (masterOf(master).isPresent()) {
				takeover(master);
			}
		}
		ClusterView view = view();
		try (NodeLinks links = new NodeLinks()) {
			boolean moved = false;
			for (Map.Entry<RedisNode, RedisNode> entry : this.initialMasterOf.entrySet()) {
				String masterId = nodeId(entry.getValue());
				if (!view.member(nodeId(entry.getKey()))
					.map(ClusterView.Member::masterId)
					.orElse("")
					.equals(masterId)) {
					links.call(entry.getKey(), "CLUSTER", "REPLICATE", masterId);
					moved = true;
				}
			}
			if (moved) {
				awaitHealthy();
			}
		}
	}

	private void restoreSlots() {
		ClusterView view = view();
		for (int i = 0; i < this.initialMasters.size(); i++) {
			RedisNode master = this.initialMasters.get(i);
			SlotRange range = initialRange(i);
			for (int slot = range.first(); slot <= range.last(); slot++) {
				if (!nodeId(master).equals(view.owner(slot))) {
					int last = slot;
					while (last < range.last() && !nodeId(master).equals(view.owner(last + 1))) {
						last++;
					}
					migrate(new SlotRange(slot, last), master);
					slot = last;
				}
			}
		}
	}

	/**
	 * Undoes every fault without touching data nor roles: thaws paused servers, ends
	 * slowdowns, starts killed servers again, and waits until the cluster is whole.
	 */
	public void undoFaults() {
		for (RedisNode node : this.nodes) {
			node.unslow();
			node.resume();
			node.start();
		}
		awaitHealthy();
	}

	/**
	 * Deletes every key: {@code FLUSHALL} on every running master, then waits until its
	 * running replicas have it too.
	 */
	public void flushAll() {
		try (NodeLinks links = new NodeLinks()) {
			ClusterView view = view(links);
			for (ClusterView.Member member : view.masters()) {
				RedisNode master = node(member.id());
				if (isLive(master)) {
					links.call(master, "FLUSHALL");
					long replicas = view.replicasOf(member.id()).stream().filter((r) -> isLive(node(r.id()))).count();
					if (replicas > 0) {
						links.call(master, "WAIT", String.valueOf(replicas), "10000");
					}
				}
			}
		}
	}

	/**
	 * Stops every server and deletes their data and configuration.
	 */
	@Override
	public void close() {
		RuntimeException failure = null;
		for (RedisNode node : this.nodes) {
			try {
				node.close();
			}
			catch (RuntimeException ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Returns whether a server runs and is not paused: whether it can answer.
	 */
	boolean isLive(RedisNode node) {
		return node.isRunning() && !node.isPaused();
	}

	private RedisNode node(String id) {
		RedisNode node = this.byId.get(id);
		if (node == null) {
			throw new IllegalStateException("Cluster " + this.name + " has no server with node id " + id);
		}
		return node;
	}

	private ClusterView view() {
		try (NodeLinks links = new NodeLinks()) {
			return view(links);
		}
	}

	/**
	 * Returns the view of the first server that answers, masters first.
	 */
	private ClusterView view(NodeLinks links) {
		UncheckedIOException failure = null;
		for (RedisNode node : this.nodes) {
			if (isLive(node)) {
				try {
					return ClusterView.read(links, node);
				}
				catch (UncheckedIOException ex) {
					failure = ex;
				}
			}
		}
		throw new IllegalStateException("No server of cluster " + this.name + " answers", failure);
	}

	@Override
	public String toString() {
		return "RedisCluster[" + this.name + ": " + this.nodes + "]";
	}

}
