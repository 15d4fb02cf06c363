package io.github.redlock.engine.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

import io.github.redlock.engine.NodeState;
import io.github.redlock.engine.RedlockSettings;
import io.github.redlock.engine.node.ClusterMember;
import io.github.redlock.engine.node.FleetClocks;
import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.LockValues;
import io.github.redlock.engine.node.NodeAddress;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.RestartGuard;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.node.ServerIdentities;
import io.github.redlock.engine.node.SilentNodes;
import io.github.redlock.engine.node.WriteCoalescing;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

/**
 * The N nodes of a registry, as the layers above see them: their clients on shared
 * Lettuce resources ({@link FleetResources}), the {@link Quorum}, the fleet's life
 * ({@link FleetConnections}), and the ways of asking the nodes: a {@link #quorumCall
 * quorum call}, decided as soon as a quorum agreed or no longer can (acquire, extend),
 * {@link #askEveryNode asking every node} and gathering every answer ({@link EveryNode}:
 * inspection, node checks), and releases and deletions that reach every node, each
 * chained on that node's acquisition reply ({@link FleetDeletions}).
 *
 * @author redlock contributors
 */
public final class NodeFleet {

	private final List<QuorumMember> nodes;

	private final Quorum quorum;

	private final ClientResources resources;

	private final long callBoundNanos;

	private final EveryNode everyNode;

	private final FleetDeletions deletions;

	private final FleetConnections connections;

	private volatile LongSupplier wallClock = System::currentTimeMillis;

	private final FleetClocks clocks;

	private final FencingStarts fencingStarts = new FencingStarts();

	/**
	 * Creates the clients; connects none of them.
	 * @param addresses the nodes, in configuration order; empty when the members are
	 * clusters
	 * @param clusters the seeds of each member that is a cluster, in configuration order
	 * @param keys where the keys are, for the clusters' slot markers
	 * @param settings the registry's settings
	 * @param resources Lettuce resources to share, or {@code null} to create (and later
	 * shut down) the fleet's own
	 * @param guard how restarted nodes are kept out of quorums
	 * @param acceptEviction whether a node whose memory policy may evict keys still
	 * counts
	 * @param silentNodes when a node that times out counts as silent, and how often it is
	 * probed
	 * @param clientOptions what to change on each node's client options
	 * @param coalesceWrites whether concurrent commands to one node go out in one write
	 * ({@link WriteCoalescing})
	 * @param lockScripts the scripts a lock call may send, loaded on every (re)connect
	 */
	public NodeFleet(List<NodeAddress> addresses, List<List<NodeAddress>> clusters, KeyLayout keys,
			RedlockSettings settings, @Nullable ClientResources resources, RestartGuard guard, boolean acceptEviction,
			SilentNodes silentNodes, Consumer<ClientOptions.Builder> clientOptions, boolean coalesceWrites,
			List<Script> lockScripts) {
		FleetResources fleetResources = new FleetResources(resources, coalesceWrites);
		this.resources = fleetResources.get();
		List<QuorumMember> clients = new ArrayList<>(addresses.size() + clusters.size());
		ServerIdentities identities = new ServerIdentities();
		FleetClocks clocks = new FleetClocks(settings.driftFactor());
		this.clocks = clocks;
		BiFunction<NodeAddress, NodeClient.ClusterMaster, NodeClient> client = (address, cluster) -> new NodeClient(
				address, this.resources, settings.nodeTimeout(), settings.maxTtl(), settings.connectTimeout(), guard,
				identities, acceptEviction, silentNodes, clientOptions, lockScripts, this::changed, cluster, clocks);
		for (NodeAddress address : addresses) {
			clients.add(client.apply(address, null));
		}
		for (List<NodeAddress> seeds : clusters) {
			clients.add(new ClusterMember(seeds, keys, this.resources, guard, settings.connectTimeout(), client,
					this::changed));
		}
		this.nodes = List.copyOf(clients);
		this.quorum = new Quorum(this.nodes.size());
		this.callBoundNanos = 3 * settings.nodeTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
		this.everyNode = new EveryNode(this.nodes, this.quorum, this.callBoundNanos);
		this.deletions = new FleetDeletions(this.nodes, this.quorum, this.resources, settings.nodeTimeout().toNanos());
		this.connections = new FleetConnections(this.nodes, this.quorum, fleetResources, this.deletions,
				settings.connectTimeout(), this.callBoundNanos);
	}

	/**
	 * Told by a node whenever its connection or trust may have changed, from the moment
	 * it is made: before the fleet has its connections, there is nobody to tell.
	 */
	private void changed() {
		FleetConnections current = this.connections;
		if (current != null) {
			current.changed();
		}
	}

	/**
	 * Sets, for tests, the wall clock of this process, which the queue stamps fall back
	 * to ({@link #queueStampMillis}).
	 */
	public void wallClock(LongSupplier wallClock) {
		this.wallClock = wallClock;
	}

	/**
	 * Returns the time to stamp a line's entry in the nodes' queues with, in ms: the time
	 * the nodes' clocks agree on, as this process measured them ({@link FleetClocks}), so
	 * that processes whose own wall clocks differ still stamp alike and the nodes order
	 * them by when they queued; this process's wall clock until a node's was read.
	 */
	public long queueStampMillis() {
		return this.clocks.nowMillis(this.wallClock.getAsLong());
	}

	/**
	 * Returns the value an attempt asks every node to start a new key's fencing counter
	 * from ({@link FencingStarts}), as the scripts take it: the time the nodes' clocks
	 * agree on, in µs, this process's wall clock until a node's was read.
	 */
	public String fencingStart() {
		long agreed = this.clocks.nowMicros(TimeUnit.MILLISECONDS.toMicros(this.wallClock.getAsLong()));
		return Long.toString(this.fencingStarts.next(agreed));
	}

	public int size() {
		return this.nodes.size();
	}

	public int quorum() {
		return this.quorum.majority();
	}

	/**
	 * Returns how many nodes their clocks keep out of quorums now (a cluster member
	 * counting once); asks no node.
	 */
	public int clockFaults() {
		return (int) this.nodes.stream().filter(QuorumMember::clockKeepsOut).count();
	}

	/**
	 * Returns how many nodes count toward a quorum now, as the last connection events and
	 * the restart guard say; asks no node.
	 */
	public int usable() {
		int usable = 0;
		for (QuorumMember node : this.nodes) {
			if (node.isUp() && node.isTrusted()) {
				usable++;
			}
		}
		return usable;
	}

	/**
	 * Returns whether a quorum of nodes may count toward a quorum by {@code deadline}
	 * ({@link System#nanoTime()}): nodes usable now, and nodes that may be soon (slow,
	 * being checked, or kept out by the restart guard until before the deadline). Nodes
	 * that refuse connections, are duplicates, may evict keys or lack a permission are
	 * not expected back. On cluster members, the masters of {@code slot} are asked.
	 */
	public boolean quorumPossibleBy(int slot, long deadline) {
		int possible = 0;
		for (QuorumMember node : this.nodes) {
			if (node.mayCountBy(slot, deadline)) {
				possible++;
			}
		}
		return this.quorum.reachedBy(possible);
	}

	/**
	 * Tells {@code listener} of each node's change of state from now on.
	 */
	public void onNodeChange(NodeStateChanges.Listener listener) {
		this.connections.states().listen(listener);
	}

	/**
	 * Returns where each node stands now, by its name, in configuration order; asks no
	 * node.
	 */
	public Map<String, NodeState> states() {
		Map<String, NodeState> states = new LinkedHashMap<>();
		for (QuorumMember node : this.nodes) {
			states.put(node.toString(), NodeStateChanges.stateOf(node));
		}
		return states;
	}

	/**
	 * Returns how long until a quorum of nodes counts again when only a wait stands in
	 * the way (the restart guard keeping new, restarted or flushed nodes out, or a clock
	 * settling), rounded up to the second; {@code null} when a quorum counts now or when
	 * it will is not known (nodes down, ruled out, or not checked yet).
	 */
	public @Nullable Duration untilQuorumCounts() {
		long left = this.quorum.countsFrom(this.nodes) - System.nanoTime();
		if (left <= 0 || left > Long.MAX_VALUE / 4) {
			return null;
		}
		return Duration.ofSeconds(TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999));
	}

	public List<QuorumMember> nodes() {
		return this.nodes;
	}

	/**
	 * Returns the Lettuce resources the node clients use.
	 */
	public ClientResources resources() {
		return this.resources;
	}

	public QuorumMember node(int index) {
		return this.nodes.get(index);
	}

	/**
	 * Returns the longest a caller waits for one call to every node: the node timeout
	 * covers a script and its NOSCRIPT reload, with a second of slack for a busy machine.
	 */
	public long callBoundNanos() {
		return this.callBoundNanos;
	}

	/**
	 * Connects to every node, once; later calls return the same future.
	 * @return a future that completes, never exceptionally, when every node answered or
	 * gave up
	 */
	public CompletableFuture<Void> connect() {
		return this.connections.connect();
	}

	/**
	 * Runs {@code action} once every node has been tried: at once on the calling thread
	 * when they have been already.
	 */
	public void whenConnected(Runnable action) {
		this.connections.whenConnected(action);
	}

	/**
	 * Connects and waits at most the connect timeout. Whether a quorum can be reached is
	 * {@link FleetAvailability}'s to say, once every node has been tried.
	 */
	public void start() {
		this.connections.start();
	}

	/**
	 * Sends a script to every node, decided as soon as a quorum agreed or no longer can.
	 * @param agrees which integer replies count as agreement
	 * @param timeoutNanos how long to wait for each node: the call timeout of the TTL it
	 * sets ({@link Validity#callTimeoutNanos})
	 * @param call the call to make on one node
	 */
	public QuorumCall quorumCall(LongPredicate agrees, long timeoutNanos, QuorumCall.Send call) {
		return QuorumCall.start(this.nodes, this.quorum.majority(), agrees, timeoutNanos, call);
	}

	/**
	 * Asks every node at once and waits for the answers, all within one call bound; a
	 * node that has not answered by then is described by {@code noAnswer}.
	 * @param doing what the caller does, for the message if interrupted
	 * @return the answers, in configuration order
	 */
	public <T> List<T> askEveryNode(Function<QuorumMember, CompletableFuture<T>> question,
			Function<QuorumMember, T> noAnswer, String doing) {
		return this.everyNode.ask(question, noAnswer, doing);
	}

	/**
	 * Deletes the lock on every node where its value starts with the secret in
	 * {@code args}, with {@link Script#RELEASE}, which publishes a release hint; each
	 * node is sent it once it answered the acquisition, and none that answered it "held"
	 * ({@link FleetDeletions} says which nodes get it and why). The rest of the nodes'
	 * deletions are awaited in the background, and {@link #close()} waits for them
	 * ({@link #awaitDeletions}): a caller that reads every node right after a release
	 * must wait for them too.
	 * @param keys the lock's key and the key's queue of waiting processes on the nodes
	 * @param args the release script's arguments: the lock value's secret part
	 * ({@link LockValues#secret}), the lease's fencing token (published with the release
	 * hint) and the line's queue arguments ({@code Waiting#releaseArgs})
	 * @param acquisition the acquisition that wrote the value
	 * @param afterQuorum run once a quorum of nodes answered the release, timed out or
	 * was never sent it (every node does one of these, within the node timeout): then a
	 * quorum is free of the lock, whatever order the commands took on the nodes (a script
	 * reloaded after a NOSCRIPT reply goes out after commands sent later); or
	 * {@code null}
	 * @return a future that completes with {@code true}, on the thread of the reply that
	 * made it so, once a quorum of nodes answered the release (deleted the value, or no
	 * longer held it) or never had the value; or with {@code false} once every node is
	 * done and fewer than a quorum are known free (the others timed out or failed: the
	 * lock stays held there until its ttl runs out)
	 * @param warnKey the lock's key as the caller named it, to log a warning with when a
	 * quorum could not be freed, or {@code null} for none (a lease already lost)
	 */
	public CompletableFuture<Boolean> releaseEverywhere(String[] keys, String[] args, QuorumCall acquisition,
			@Nullable AfterQuorum afterQuorum, @Nullable String warnKey) {
		return this.deletions.release(keys, args, acquisition, afterQuorum, warnKey);
	}

	/**
	 * Queues this registry's line for a key on every node ({@link Script#QUEUE_WAITER}),
	 * after an attempt was refused by a holder, so that a release names it when its turn
	 * comes; fire and forget, but for one answer: {@code free} runs when a quorum of
	 * nodes said that the key was free by then (released between the refusal and this,
	 * with a hint for nobody in this line).
	 * @param keys the lock's key and the key's queue on the nodes
	 * @param args the line's stamp, its id and how long it may wait, in ms
	 * @param free what to run when a quorum found the key free, or {@code null}
	 */
	public void queueWaiter(String[] keys, String[] args, @Nullable Runnable free) {
		this.everyNode.queueWaiter(keys, args, free);
	}

	/**
	 * What a release runs once a quorum of nodes is done with it.
	 */
	@FunctionalInterface
	public interface AfterQuorum {

		/**
		 * @param queuedBehind whether a node of that quorum named another process's line
		 * in its release hint and queued this registry's line behind it
		 * ({@link Script#RELEASE}): this registry's next waiter waits its turn
		 */
		void done(boolean queuedBehind);

	}

	/**
	 * Deletes a failed attempt's value as {@link #releaseEverywhere} does, but with
	 * {@link Script#WITHDRAW}, which publishes no release hint, and which undoes the
	 * attempt's increment of a node's fencing counter where the attempt counted above the
	 * nodes that refused it ({@link QuorumCall#tokenAboveHolders}).
	 * @param lockAndFence the lock's key and its fencing counter's key on the nodes
	 * @param retentionMillis the fencing counter's retention, in milliseconds
	 */
	public CompletableFuture<Boolean> withdrawEverywhere(String[] lockAndFence, String secret, QuorumCall acquisition,
			@Nullable String retentionMillis) {
		return this.deletions.withdraw(lockAndFence, secret, acquisition, retentionMillis);
	}

	/**
	 * Sends a script that undoes an acquisition (releases or withdraws a read lock, a
	 * write lock or a permit) to every node, each once it answered the acquisition and
	 * skipping those that answered it "held", as {@link #releaseEverywhere} does, and
	 * counted among the deletions that {@link #close()} waits for.
	 * @param script the release or withdrawal script
	 * @param keys its keys
	 * @param args its arguments
	 * @param acquisition the acquisition that wrote the value
	 * @param afterQuorum run once a quorum is done, or {@code null}
	 * @param warnKey as for {@link #releaseEverywhere}
	 * @return a future that completes with {@code true} once a quorum of nodes is free of
	 * the entry, or {@code false} once every node is done without that
	 */
	public CompletableFuture<Boolean> undoEverywhere(Script script, String[] keys, String[] args,
			QuorumCall acquisition, @Nullable Runnable afterQuorum, @Nullable String warnKey) {
		return this.deletions.undo(script, keys, args, acquisition, afterQuorum, warnKey);
	}

	/**
	 * Waits until every release and withdrawal sent so far is done on every node
	 * (answered, timed out or never sent), at most {@code timeoutNanos}: what a release
	 * that returned at a quorum left in the background.
	 * @return whether they all were done in time
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitDeletions(long timeoutNanos) throws InterruptedException {
		return this.deletions.awaitDeletions(timeoutNanos);
	}

	/**
	 * Closes every connection as {@link #close()} does, but keeps the clients and the
	 * Lettuce resources, so that {@link #resume()} and {@link #start()} connect again;
	 * waits a bounded time.
	 */
	public void stop() {
		this.connections.stop();
	}

	/**
	 * Lets the stopped fleet connect again: the next {@link #connect()} connects every
	 * node, and availability is told afresh once every node has been tried.
	 */
	public void resume() {
		this.connections.resume();
	}

	/**
	 * Waits for the releases and withdrawals still on their way, then closes every
	 * connection, letting scripts already sent land first, and the Lettuce resources if
	 * the fleet created or copied them; waits a bounded time.
	 */
	public void close() {
		this.connections.close();
	}

	@Override
	public String toString() {
		return this.nodes.toString();
	}

}
