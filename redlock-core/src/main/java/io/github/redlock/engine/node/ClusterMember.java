package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.NodeStatus;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A Redis or Valkey Cluster as one member of the quorum: its vote for a key is the reply
 * of the master that owns the key's slot. Each master is a {@link NodeClient} of its own
 * (its connection, generation, trust, silence and health, as a single node has), whose
 * trust checks the markers of every slot it owns ({@link SlotCheck}); Lettuce's cluster
 * client is not used, since it follows redirects and reconnects on connections whose
 * server nobody vouched for.
 * <p>
 * The member's view of the cluster ({@link ClusterView}, from {@code CLUSTER NODES}) only
 * says where to send: it is refreshed every second, at once after a redirect, and asked
 * of a master, or of the seeds when no master answers. Whether a reply counts rests on
 * the master that sent it: a master runs a script only for a slot it owns, and its trust
 * was checked on that connection.
 * <p>
 * <b>Invariants.</b> A call goes to one master and is never sent again to another, so
 * that the member votes once per attempt: a redirect is a "no" and a refresh
 * ({@link NodeErrors#isRedirect}). A master whose role, config epoch or slots changed in
 * the view is checked again before the view that routes to it is used
 * ({@link NodeClient#recheck()}), and a master that left the view is closed. An acquire
 * script is never sent to a master without the marker of the key's slot while the restart
 * guard is on.
 * <p>
 * Longer than the size target: it implements the whole {@link QuorumMember} interface
 * (each method a few lines over the masters of the view), and the refresh that replaces
 * the view also makes, rechecks and closes the masters' clients; splitting the two would
 * put the rule that a changed master is checked again before the view routes to it across
 * two classes.
 *
 * @author redlock contributors
 */
public final class ClusterMember implements QuorumMember {

	private static final Log logger = LogFactory.getLog(ClusterMember.class);

	private static final long REFRESH_INTERVAL_MILLIS = 1000;

	/** The least time between two refreshes asked for by redirects. */
	private static final long REDIRECT_REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final List<NodeAddress> seeds;

	private final String name;

	private final ClientResources resources;

	private final RestartGuard guard;

	private final Duration connectTimeout;

	private final BiFunction<NodeAddress, NodeClient.ClusterMaster, NodeClient> masterClients;

	private final NodeClient.ClusterMaster shared;

	private final Runnable changed;

	/** Every master client made, by host and port, until it leaves the view. */
	private final Map<String, NodeClient> clients = new ConcurrentHashMap<>();

	private final AtomicBoolean refreshing = new AtomicBoolean();

	private volatile ClusterView view = ClusterView.EMPTY;

	private volatile long lastRefreshNanos;

	private volatile @Nullable CompletableFuture<Void> currentRefresh;

	private volatile boolean closed;

	private volatile boolean started;

	private volatile @Nullable CompletableFuture<Void> connecting;

	private volatile @Nullable ScheduledFuture<?> refresher;

	private volatile @Nullable Runnable afterTrustCheck;

	/**
	 * Creates the member; connects nothing.
	 * @param seeds the cluster's seed addresses, in configuration order
	 * @param keys where the slots' markers are
	 * @param resources the Lettuce resources, also for the periodic refresh
	 * @param guard the registry's restart guard
	 * @param connectTimeout how long a seed's connection may take
	 * @param masterClients makes the client of one master
	 * @param changed told whenever whether the member counts may have changed
	 */
	public ClusterMember(List<NodeAddress> seeds, KeyLayout keys, ClientResources resources, RestartGuard guard,
			Duration connectTimeout, BiFunction<NodeAddress, NodeClient.ClusterMaster, NodeClient> masterClients,
			Runnable changed) {
		this.seeds = List.copyOf(seeds);
		this.name = "cluster " + this.seeds.get(0) + ((this.seeds.size() > 1) ? " (+" + (seeds.size() - 1) + ")" : "");
		this.resources = resources;
		this.guard = guard;
		this.connectTimeout = connectTimeout;
		this.masterClients = masterClients;
		this.changed = changed;
		this.shared = new NodeClient.ClusterMaster(new SlotMarkers(keys), this::redirected);
	}

	@Override
	public synchronized CompletableFuture<Void> connect() {
		CompletableFuture<Void> current = this.connecting;
		if (current != null && !current.isDone()) {
			return current;
		}
		this.started = true;
		CompletableFuture<Void> attempt = refresh()
			.thenCompose((ignored) -> CompletableFuture
				.allOf(this.view.masters().stream().map(NodeClient::connect).toArray(CompletableFuture[]::new)))
			.exceptionally((ex) -> null);
		this.connecting = attempt;
		if (this.refresher == null) {
			this.refresher = this.resources.eventExecutorGroup()
				.scheduleWithFixedDelay(this::refreshQuietly, REFRESH_INTERVAL_MILLIS, REFRESH_INTERVAL_MILLIS,
						TimeUnit.MILLISECONDS);
		}
		return attempt;
	}

	private void refreshQuietly() {
		if (!this.closed) {
			refresh();
		}
	}

	/**
	 * A master answered that it does not serve a key's slot now: the view is refreshed,
	 * at most once per {@link #REDIRECT_REFRESH_NANOS}.
	 */
	private void redirected() {
		if (System.nanoTime() - this.lastRefreshNanos > REDIRECT_REFRESH_NANOS) {
			refresh();
		}
	}

	/**
	 * Reads the cluster's topology from a master or a seed and makes it the view.
	 * @return a future that completes, never exceptionally, when done or given up, and
	 * the masters new to the view have been tried (when the member is started); the one
	 * in flight if a refresh runs already
	 */
	CompletableFuture<Void> refresh() {
		if (this.closed) {
			return CompletableFuture.completedFuture(null);
		}
		if (!this.refreshing.compareAndSet(false, true)) {
			CompletableFuture<Void> current = this.currentRefresh;
			return (current != null) ? current : CompletableFuture.completedFuture(null);
		}
		this.lastRefreshNanos = System.nanoTime();
		CompletableFuture<Void> done = new CompletableFuture<>();
		this.currentRefresh = done;
		topology(this.view.masters().iterator()).handle((answer, ex) -> {
			List<CompletableFuture<Void>> connects = List.of();
			try {
				if (answer != null && !this.closed) {
					connects = apply(ClusterPartitionParser.parse(answer.nodes()), answer.from());
				}
				else if (ex != null && this.view == ClusterView.EMPTY) {
					logger.debug("Could not read the topology of " + this.name, ex);
				}
			}
			catch (RuntimeException applyEx) {
				logger.warn("Could not read the topology of redlock " + this.name + ": " + applyEx.getMessage());
			}
			finally {
				this.refreshing.set(false);
			}
			CompletableFuture.allOf(connects.toArray(CompletableFuture[]::new))
				.whenComplete((ignored, connectEx) -> done.complete(null));
			return null;
		});
		return done;
	}

	/**
	 * A reply to {@code CLUSTER NODES}, and who gave it: a server that has never met
	 * another does not know its own address, and names itself with an empty host.
	 */
	private record Topology(String nodes, NodeAddress from) {
	}

	/** Asks the known masters in turn, then the seeds. */
	private CompletableFuture<Topology> topology(Iterator<NodeClient> masters) {
		if (!masters.hasNext()) {
			return fromSeeds(this.seeds.iterator());
		}
		NodeClient master = masters.next();
		return master.clusterNodes()
			.thenApply((nodes) -> new Topology(nodes, master.address()))
			.exceptionallyCompose((ex) -> topology(masters));
	}

	private CompletableFuture<Topology> fromSeeds(Iterator<NodeAddress> seeds) {
		if (!seeds.hasNext()) {
			return CompletableFuture.failedFuture(new IllegalStateException("no seed answered"));
		}
		NodeAddress seed = seeds.next();
		return askSeed(seed).thenApply((nodes) -> new Topology(nodes, seed))
			.exceptionallyCompose((ex) -> fromSeeds(seeds));
	}

	private CompletableFuture<String> askSeed(NodeAddress seed) {
		RedisClient client = RedisClient.create(this.resources);
		seed.uri().setTimeout(this.connectTimeout);
		CompletableFuture<String> nodes;
		try {
			nodes = client.connectAsync(StringCodec.UTF8, seed.uri())
				.toCompletableFuture()
				.thenCompose((StatefulRedisConnection<String, String> connection) -> connection.async()
					.clusterNodes()
					.toCompletableFuture()
					.whenComplete((reply, ex) -> connection.closeAsync()));
		}
		catch (RuntimeException ex) {
			nodes = CompletableFuture.failedFuture(ex);
		}
		return nodes.whenComplete((reply, ex) -> client.shutdownAsync(0, 2, TimeUnit.SECONDS));
	}

	/**
	 * Makes a topology the view: masters new to it get clients (connected if the member
	 * is), masters whose role, epoch or slots changed are checked again before the view
	 * routes to them, and masters that left are closed.
	 */
	private synchronized List<CompletableFuture<Void>> apply(Partitions topology, NodeAddress from) {
		ClusterView old = this.view;
		ClusterView.Builder next = new ClusterView.Builder();
		List<NodeClient> fresh = new ArrayList<>();
		for (RedisClusterNode node : topology) {
			if (!ClusterView.servesSlots(node)) {
				continue;
			}
			RedisURI uri = node.getUri();
			if (uri == null || uri.getHost() == null || uri.getHost().isEmpty()) {
				if (!node.is(RedisClusterNode.NodeFlag.MYSELF)) {
					continue;
				}
				// the server that answered, naming itself before it met another
				uri = from.uri();
			}
			String host = uri.getHost();
			int port = uri.getPort();
			String where = host + ":" + port;
			NodeClient client = this.clients.get(where);
			if (client == null) {
				client = this.masterClients.apply(this.seeds.get(0).withHostAndPort(host, port), this.shared);
				Runnable seam = this.afterTrustCheck;
				if (seam != null) {
					client.afterTrustCheck(seam);
				}
				this.clients.put(where, client);
				fresh.add(client);
			}
			next.add(client, node);
		}
		ClusterView view = next.build();
		for (NodeClient client : view.masters()) {
			if (!fresh.contains(client) && !old.sameRole(client, view)) {
				// its slots or its epoch changed: whatever it answers for now is checked
				// before it counts
				client.recheck();
			}
		}
		List<NodeClient> gone = new ArrayList<>();
		for (Iterator<Map.Entry<String, NodeClient>> entries = this.clients.entrySet().iterator(); entries.hasNext();) {
			NodeClient client = entries.next().getValue();
			if (!view.masters().contains(client)) {
				entries.remove();
				gone.add(client);
			}
		}
		this.view = view;
		List<CompletableFuture<Void>> connects = this.started ? fresh.stream().map(NodeClient::connect).toList()
				: List.of();
		gone.forEach(NodeClient::closeAsync);
		if (old != ClusterView.EMPTY && !old.sameTopology(view)) {
			logger.info("Redlock " + this.name + ": the cluster's topology changed; masters now " + view.describe());
		}
		else if (old == ClusterView.EMPTY) {
			logger.debug("Redlock " + this.name + ": masters " + view.describe());
		}
		this.changed.run();
		return connects;
	}

	@Override
	public void eval(Script script, String[] keys, String[] args, int index, NodeClient.ReplyHandler replies) {
		int slot = SlotHash.getSlot(keys[0]);
		NodeClient master = this.view.owner(slot);
		if (master == null) {
			redirected();
			replies.reply(index, NodeReply.failed(new NodeFailure(this.name, NodeFailure.Kind.REFUSED,
					"no master is known to own slot " + slot + " (the cluster is down or still being read)")));
			return;
		}
		if (this.guard.enabled() && script.checksMarker() && master.marker(slot).isEmpty()) {
			master.recheck();
			replies.reply(index, NodeReply.failed(new NodeFailure(master.toString(), NodeFailure.Kind.RESTARTED,
					"slot " + slot + " is new to this master; checking it")));
			return;
		}
		master.eval(script, keys, args, index, replies);
	}

	@Override
	public CompletableFuture<List<Object>> evalList(Script script, String[] keys, String... args) {
		NodeClient master = this.view.owner(SlotHash.getSlot(keys[0]));
		if (master == null) {
			return CompletableFuture.failedFuture(new IllegalStateException("no master owns the key's slot"));
		}
		return master.evalList(script, keys, args);
	}

	@Override
	public CompletableFuture<NodeStatus> check() {
		ClusterView current = this.view;
		if (current.masters().isEmpty()) {
			return CompletableFuture.completedFuture(
					new NodeStatus(this.name, false, null, this.closed ? "not connected: the registry is stopped"
							: "its topology is not known: no seed answered CLUSTER NODES"));
		}
		List<CompletableFuture<NodeStatus>> checks = current.masters().stream().map(NodeClient::check).toList();
		return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).thenApply((ignored) -> {
			List<NodeStatus> masters = checks.stream().map(CompletableFuture::join).toList();
			boolean usable = current.coversEverySlot() && masters.stream().allMatch(NodeStatus::usable);
			Duration latency = masters.stream()
				.map(NodeStatus::latency)
				.filter((value) -> value != null)
				.max(Duration::compareTo)
				.orElse(null);
			String problem = null;
			if (!current.coversEverySlot()) {
				problem = current.unowned() + " have no master (CLUSTERDOWN: a master failed with no replica to"
						+ " take over)";
			}
			String masterProblems = masters.stream()
				.filter((status) -> !status.usable())
				.map((status) -> "master " + status.node() + " (" + current.slotRanges(status.node()) + "): "
						+ status.problem())
				.collect(Collectors.joining("; "));
			if (!masterProblems.isEmpty()) {
				problem = (problem != null) ? problem + "; " + masterProblems : masterProblems;
			}
			return new NodeStatus(this.name, usable, usable ? latency : null, problem, null, masters);
		});
	}

	@Override
	public NodeFailure classify(Throwable ex) {
		List<NodeClient> masters = this.view.masters();
		return masters.isEmpty() ? new NodeFailure(this.name, NodeFailure.Kind.ERROR, NodeErrors.message(ex))
				: masters.get(0).classify(ex);
	}

	@Override
	public String marker(int slot) {
		NodeClient master = this.view.owner(slot);
		return (master != null) ? master.marker(slot) : "";
	}

	@Override
	public String floor(int slot) {
		NodeClient master = this.view.owner(slot);
		return (master != null) ? master.floor(slot) : "";
	}

	@Override
	public boolean mayCountBy(int slot, long deadline) {
		NodeClient master = this.view.owner(slot);
		return (master != null) ? master.mayCountBy(slot, deadline) : !this.started;
	}

	@Override
	public boolean isUp() {
		ClusterView current = this.view;
		return current.coversEverySlot() && current.masters().stream().allMatch(NodeClient::isUp);
	}

	@Override
	public boolean isTrusted() {
		ClusterView current = this.view;
		return current.coversEverySlot() && current.masters().stream().allMatch(NodeClient::isTrusted);
	}

	@Override
	public boolean isSilent() {
		return this.view.masters().stream().anyMatch(NodeClient::isSilent);
	}

	@Override
	public long countsFrom() {
		ClusterView current = this.view;
		if (!current.coversEverySlot()) {
			return Long.MAX_VALUE;
		}
		long from = Long.MIN_VALUE;
		for (NodeClient master : current.masters()) {
			from = Math.max(from, master.countsFrom());
		}
		return from;
	}

	@Override
	public boolean clockKeepsOut() {
		return this.view.masters().stream().anyMatch(NodeClient::clockKeepsOut);
	}

	@Override
	public NodeTrust.@Nullable GuardCause guardCause() {
		for (NodeClient master : this.view.masters()) {
			NodeTrust.GuardCause cause = master.guardCause();
			if (cause != null) {
				return cause;
			}
		}
		return null;
	}

	@Override
	public boolean isConnected() {
		List<NodeClient> masters = this.view.masters();
		return !masters.isEmpty() && masters.stream().allMatch(NodeClient::isConnected);
	}

	/**
	 * Subscribes on the first master of the view: a cluster delivers what any node
	 * publishes to every node, so one connection hears every master's release hints.
	 */
	@Override
	public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		List<NodeClient> masters = this.view.masters();
		return masters.isEmpty() ? CompletableFuture.failedFuture(new IllegalStateException("no master known"))
				: masters.get(0).connectPubSub();
	}

	@Override
	public CompletableFuture<Void> closeAsync() {
		this.closed = true;
		cancelRefresh();
		return CompletableFuture
			.allOf(this.clients.values().stream().map(NodeClient::closeAsync).toArray(CompletableFuture[]::new));
	}

	@Override
	public CompletableFuture<Void> stopAsync() {
		this.started = false;
		cancelRefresh();
		return CompletableFuture
			.allOf(this.clients.values().stream().map(NodeClient::stopAsync).toArray(CompletableFuture[]::new));
	}

	private synchronized void cancelRefresh() {
		ScheduledFuture<?> current = this.refresher;
		this.refresher = null;
		if (current != null) {
			current.cancel(false);
		}
	}

	@Override
	public void reopen() {
		this.clients.values().forEach(NodeClient::reopen);
	}

	@Override
	public void afterTrustCheck(Runnable action) {
		this.afterTrustCheck = action;
		this.clients.values().forEach((client) -> client.afterTrustCheck(action));
	}

	/**
	 * Returns the masters of the member's view now, for tests and operators.
	 */
	public List<NodeClient> masters() {
		return this.view.masters();
	}

	@Override
	public String toString() {
		return this.name;
	}

}
