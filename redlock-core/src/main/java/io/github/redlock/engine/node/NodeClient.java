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
public final class NodeClient {

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
		this.address = address;
		String node = address.toString();
		ConnectionGenerations generations = new ConnectionGenerations();
		// the trust and the silence read the connection, which is made after them
		this.trust = new NodeTrust(node, guard, resources, this::lockConnection, generations, identities,
				acceptEviction, changed);
		this.silence = new NodeSilence(node, silentNodes, nodeTimeout, resources, this::lockConnection, this::lastRead,
				changed);
		NodeConnection.NodeParts parts = new NodeConnection.NodeParts(this.trust, this.silence,
				new NodeErrors(node, "after " + nodeTimeout.toMillis() + "ms"), generations, new InFlight());
		this.connection = new NodeConnection(address, resources, nodeTimeout, deletionTimeout, connectTimeout,
				silentNodes, customizer, parts, lockScripts, changed);
		this.calls = new ScriptCalls(node, this.connection, parts, resources, nodeTimeout);
		this.health = new NodeHealth(address, this.connection, this.calls, parts);
		this.errors = parts.errors();
	}

	private StatefulRedisConnection<String, String> lockConnection() {
		return this.connection.current();
	}

	private long lastRead() {
		return this.connection.lastRead();
	}

	/**
	 * Starts connecting, unless connected or connecting already.
	 * @return a future that completes, never exceptionally, when this attempt ends
	 */
	public CompletableFuture<Void> connect() {
		return this.connection.connect();
	}

	/**
	 * Runs a script on this node.
	 * @return a future that completes, never exceptionally, with the reply or why there
	 * is none
	 */
	public CompletableFuture<NodeReply> eval(Script script, String[] keys, String... args) {
		CompletableFuture<NodeReply> result = new CompletableFuture<>();
		eval(script, keys, args, 0, (index, reply) -> result.complete(reply));
		return result;
	}

	/**
	 * Runs a script on this node and hands the reply, or why there is none, to
	 * {@code replies}, once, with {@code index}: on the hot path a quorum call or a
	 * release hears its nodes so, without a future per node.
	 */
	public void eval(Script script, String[] keys, String[] args, int index, ReplyHandler replies) {
		this.calls.eval(script, keys, args, index, replies);
	}

	/**
	 * Runs a script whose reply is a list, such as {@link Script#INSPECT}. Nothing on the
	 * lock path uses it.
	 */
	public CompletableFuture<List<Object>> evalList(Script script, String[] keys, String... args) {
		return this.calls.evalList(script, keys, args);
	}

	/**
	 * Runs {@code action} between the trust check and the send of every later script: a
	 * seam for tests of what happens when the connection drops just then.
	 */
	public void afterTrustCheck(Runnable action) {
		this.calls.afterTrustCheck(action);
	}

	/**
	 * Says whether this node counts toward a quorum now, running a script that reads the
	 * node marker: what locking needs of the ACL user.
	 * @return a future that completes, never exceptionally, within the node timeout
	 */
	public CompletableFuture<NodeStatus> check() {
		return this.health.check();
	}

	public NodeFailure classify(Throwable ex) {
		return this.errors.classify(ex);
	}

	/**
	 * Returns whether the connection is open at this instant (unlike {@link #isUp()},
	 * which follows connection events).
	 */
	public boolean isConnected() {
		return this.connection.isConnected();
	}

	/**
	 * Closes the connection and the client.
	 */
	public CompletableFuture<Void> closeAsync() {
		return this.connection.closeAsync();
	}

	/**
	 * Closes the connection but keeps the client, which {@link #reopen()} lets connect
	 * again; the trust vouches for no later connection before it checked it.
	 */
	public CompletableFuture<Void> stopAsync() {
		return this.connection.stopAsync();
	}

	/**
	 * Lets a stopped client connect again, on the next {@link #connect()}.
	 */
	public void reopen() {
		this.connection.reopen();
	}

	/**
	 * Returns the marker this client last saw on the node, which the acquire script
	 * checks; empty when the guard is off.
	 */
	public String marker() {
		return this.trust.marker();
	}

	/**
	 * Returns the least fencing token the node may hand out, sent with the marker: see
	 * {@link NodeTrust#floor()}.
	 */
	public String floor() {
		return this.trust.floor();
	}

	/**
	 * Returns whether this node may count toward a quorum by {@code deadline}: it is
	 * connected, or its connection dropped so recently that Lettuce may yet reconnect,
	 * and its trust does not rule it out until after then.
	 */
	public boolean mayCountBy(long deadline) {
		return this.connection.mayBeBack() && this.trust.mayCountBy(deadline);
	}

	/**
	 * Returns whether the node's connection is up now, as the last connection event said.
	 */
	public boolean isUp() {
		return this.connection.isUp();
	}

	/**
	 * Returns when this node will count again ({@link NodeTrust#countsFrom()}), or
	 * {@link Long#MAX_VALUE} while it is down.
	 */
	public long countsFrom() {
		return (isUp() && !this.silence.isSilent()) ? this.trust.countsFrom() : Long.MAX_VALUE;
	}

	public NodeTrust.GuardCause guardCause() {
		return this.trust.guardCause();
	}

	/**
	 * Returns whether this node counts toward quorums now: its trust says so and it is
	 * not silent.
	 */
	public boolean isTrusted() {
		return !this.silence.isSilent() && this.trust.isTrusted();
	}

	/**
	 * Returns whether this node is silent ({@link NodeSilence}): it timed out again and
	 * again and has not answered a probe since.
	 */
	public boolean isSilent() {
		return this.silence.isSilent();
	}

	/**
	 * Opens a publish/subscribe connection to this node, for release hints: a connection
	 * of its own, since a subscribed connection runs no other command. Lettuce subscribes
	 * it again after a reconnect.
	 */
	public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		return this.connection.connectPubSub();
	}

	@Override
	public String toString() {
		return this.address.toString();
	}

	/**
	 * Hears the replies of script calls to nodes, each call's once, by the index it was
	 * sent with.
	 */
	@FunctionalInterface
	public interface ReplyHandler {

		void reply(int index, NodeReply reply);

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
