package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.NodeStatus;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

/**
 * One node, as the layers above see it: its connection ({@link NodeConnection}), script
 * calls that never fail their future but answer a {@link NodeReply} within the node
 * timeout ({@link ScriptCalls}), its health check ({@link NodeHealth}), and whether it
 * counts toward a quorum now.
 * <p>
 * Whether the node counts is {@link NodeTrust}'s to say, on the connection generation it
 * vouched for ({@link ConnectionGenerations}); whether it has gone silent (timed out
 * again and again, as behind a black hole) {@link NodeSilence}'s; and what a failure
 * means {@link NodeErrors}'s.
 *
 * @author redlock contributors
 */
public final class NodeClient implements QuorumMember {

	private final NodeAddress address;

	private final NodeConnection connection;

	private final ScriptCalls calls;

	private final NodeHealth health;

	private final NodeTrust trust;

	private final NodeSilence silence;

	private final NodeErrors errors;

	public NodeClient(NodeAddress address, ClientResources resources, Duration nodeTimeout, Duration deletionTimeout,
			Duration connectTimeout, RestartGuard guard, ServerIdentities identities, boolean acceptEviction,
			SilentNodes silentNodes, Consumer<ClientOptions.Builder> customizer, List<Script> lockScripts,
			Runnable changed) {
		this(address, resources, nodeTimeout, deletionTimeout, connectTimeout, guard, identities, acceptEviction,
				silentNodes, customizer, lockScripts, changed, null, null);
	}

	/**
	 * Creates the client of one master of a cluster member: its trust checks the markers
	 * of every slot it owns ({@link SlotCheck}), and a reply saying that it does not
	 * serve a key's slot is told to the member.
	 * @param cluster the member's markers per slot, and what to tell of a redirect;
	 * {@code null} for a single node
	 * @param clocks the fleet's clocks, among which this node's is watched while the
	 * restart guard is on ({@link NodeClock}); {@code null} not to watch it
	 */
	public NodeClient(NodeAddress address, ClientResources resources, Duration nodeTimeout, Duration deletionTimeout,
			Duration connectTimeout, RestartGuard guard, ServerIdentities identities, boolean acceptEviction,
			SilentNodes silentNodes, Consumer<ClientOptions.Builder> customizer, List<Script> lockScripts,
			Runnable changed, @Nullable ClusterMaster cluster, @Nullable FleetClocks clocks) {
		this.address = address;
		String node = address.toString();
		ConnectionGenerations generations = new ConnectionGenerations();
		// the trust and the silence read the connection, which is made after them
		this.trust = new NodeTrust(node, guard, resources, this::lockConnection, generations, identities,
				acceptEviction, changed, (cluster != null) ? cluster.markers() : null, clocks);
		this.silence = new NodeSilence(node, silentNodes, nodeTimeout, resources, this::lockConnection, this::lastRead,
				changed);
		NodeConnection.NodeParts parts = new NodeConnection.NodeParts(this.trust, this.silence,
				new NodeErrors(node, "after " + nodeTimeout.toMillis() + "ms"), generations, new InFlight());
		this.connection = new NodeConnection(address, resources, nodeTimeout, deletionTimeout, connectTimeout,
				silentNodes, customizer, parts, lockScripts, changed);
		this.calls = new ScriptCalls(node, this.connection, parts, resources, nodeTimeout,
				(cluster != null) ? cluster.redirected() : null);
		this.health = new NodeHealth(address, this.connection, this.calls, parts);
		this.errors = parts.errors();
	}

	private @Nullable StatefulRedisConnection<String, String> lockConnection() {
		return this.connection.current();
	}

	private long lastRead() {
		return this.connection.lastRead();
	}

	/**
	 * Starts connecting, unless connected or connecting already.
	 * @return a future that completes, never exceptionally, when this attempt ends
	 */
	@Override
	public CompletableFuture<Void> connect() {
		this.trust.watchClock();
		return this.connection.connect();
	}

	/**
	 * Runs a script on this node and hands the reply, or why there is none, to
	 * {@code replies}, once, with {@code index}: on the hot path a quorum call or a
	 * release hears its nodes so, without a future per node.
	 */
	@Override
	public void eval(Script script, String[] keys, String[] args, int index, ReplyHandler replies) {
		this.calls.eval(script, keys, args, index, replies);
	}

	/**
	 * Runs a script whose reply is a list, such as {@link Script#INSPECT}. Nothing on the
	 * lock path uses it.
	 */
	@Override
	public CompletableFuture<List<Object>> evalList(Script script, String[] keys, String... args) {
		return this.calls.evalList(script, keys, args);
	}

	/**
	 * Runs {@code action} between the trust check and the send of every later script: a
	 * seam for tests of what happens when the connection drops just then.
	 */
	@Override
	public void afterTrustCheck(Runnable action) {
		this.calls.afterTrustCheck(action);
	}

	/**
	 * Says whether this node counts toward a quorum now, running a script that reads the
	 * node marker: what locking needs of the ACL user.
	 * @return a future that completes, never exceptionally, within the node timeout
	 */
	@Override
	public CompletableFuture<NodeStatus> check() {
		return this.health.check();
	}

	@Override
	public NodeFailure classify(Throwable ex) {
		return this.errors.classify(ex);
	}

	/**
	 * Returns whether the connection is open at this instant (unlike {@link #isUp()},
	 * which follows connection events).
	 */
	@Override
	public boolean isConnected() {
		return this.connection.isConnected();
	}

	/**
	 * Closes the connection and the client.
	 */
	@Override
	public CompletableFuture<Void> closeAsync() {
		this.trust.closeClock();
		return this.connection.closeAsync();
	}

	/**
	 * Closes the connection but keeps the client, which {@link #reopen()} lets connect
	 * again; the trust vouches for no later connection before it checked it.
	 */
	@Override
	public CompletableFuture<Void> stopAsync() {
		return this.connection.stopAsync();
	}

	/**
	 * Lets a stopped client connect again, on the next {@link #connect()}.
	 */
	@Override
	public void reopen() {
		this.connection.reopen();
	}

	/**
	 * Returns the marker this client last saw on the node, which the acquire script
	 * checks; empty when the guard is off. A single node has one marker, whatever the
	 * slot; a cluster master one per slot it owns.
	 */
	@Override
	public String marker(int slot) {
		return this.trust.marker(slot);
	}

	/**
	 * Returns the least fencing token the node may hand out, sent with the marker: see
	 * {@link NodeTrust#floor()}.
	 */
	@Override
	public String floor(int slot) {
		return this.trust.floor();
	}

	/**
	 * Returns whether this node may count toward a quorum by {@code deadline}: it is
	 * connected, or its connection dropped so recently that Lettuce may yet reconnect,
	 * and its trust does not rule it out until after then.
	 */
	@Override
	public boolean mayCountBy(int slot, long deadline) {
		return this.connection.mayBeBack() && this.trust.mayCountBy(deadline);
	}

	/**
	 * Returns whether the node's connection is up now, as the last connection event said.
	 */
	@Override
	public boolean isUp() {
		return this.connection.isUp();
	}

	/**
	 * Returns when this node will count again ({@link NodeTrust#countsFrom()}), or
	 * {@link Long#MAX_VALUE} while it is down.
	 */
	@Override
	public long countsFrom() {
		return (isUp() && !this.silence.isSilent()) ? this.trust.countsFrom() : Long.MAX_VALUE;
	}

	@Override
	public NodeTrust.@Nullable GuardCause guardCause() {
		return this.trust.guardCause();
	}

	@Override
	public boolean clockKeepsOut() {
		return this.trust.clockKeepsOut();
	}

	/**
	 * Returns whether this node counts toward quorums now: its trust says so and it is
	 * not silent.
	 */
	@Override
	public boolean isTrusted() {
		return !this.silence.isSilent() && this.trust.isTrusted();
	}

	/**
	 * Returns whether this node is silent ({@link NodeSilence}): it timed out again and
	 * again and has not answered a probe since.
	 */
	@Override
	public boolean isSilent() {
		return this.silence.isSilent();
	}

	/**
	 * Opens a publish/subscribe connection to this node, for release hints: a connection
	 * of its own, since a subscribed connection runs no other command. Lettuce subscribes
	 * it again after a reconnect.
	 */
	@Override
	public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		return this.connection.connectPubSub();
	}

	@Override
	public String toString() {
		return this.address.toString();
	}

	/**
	 * What a master of a cluster member shares with the member.
	 *
	 * @param markers the member's restart guard markers per slot
	 * @param redirected told when the master answers that it does not serve a key's slot
	 */
	public record ClusterMaster(SlotMarkers markers, Runnable redirected) {

	}

	/**
	 * Revokes the vouching of the current connection and checks the master again: the
	 * member's view of the cluster changed for it (its role, its config epoch or its
	 * slots), so that it counts again only once a check ran on what it is now.
	 */
	public void recheck() {
		this.trust.dataLost();
	}

	/**
	 * Runs {@code CLUSTER NODES} on this master's connection, for the member's view of
	 * the cluster.
	 * @return a future of the reply, failed if there is no connection
	 */
	public CompletableFuture<String> clusterNodes() {
		StatefulRedisConnection<String, String> current = this.connection.current();
		if (current == null || !current.isOpen()) {
			return CompletableFuture.failedFuture(new IllegalStateException("not connected"));
		}
		return current.async().clusterNodes().toCompletableFuture();
	}

	/**
	 * Returns the address of this node.
	 */
	public NodeAddress address() {
		return this.address;
	}

	/**
	 * Hears the replies of script calls to nodes, each call's once, by the index it was
	 * sent with.
	 */
	@FunctionalInterface
	public interface ReplyHandler {

		void reply(int index, NodeReply reply);

		/**
		 * Returns how long the call waits for each node's reply, in ns, or {@code 0} for
		 * the node timeout. It goes with the command ({@link ScriptArgs#timeoutNanos}),
		 * which Lettuce times out then.
		 */
		default long timeoutNanos() {
			return 0;
		}

	}

	/**
	 * A {@link ReplyHandler} of deletions that hears each node's timeout itself, within
	 * the node timeout of sending, so that no {@link DeletionReply} (and its timer) is
	 * made per node: the fleet's deletions keep one timer for every node.
	 */
	public interface DeletionDeadline extends ReplyHandler {

		/**
		 * The deletion is about to be handed to Lettuce for the node at {@code index}:
		 * its node timeout starts. Not called for a node that fails it at once (not
		 * connected, closed, untrusted).
		 */
		void sending(int index);

	}

}
