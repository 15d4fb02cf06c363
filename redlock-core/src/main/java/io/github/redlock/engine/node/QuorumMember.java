package io.github.redlock.engine.node;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.NodeStatus;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * One vote of the quorum, as the layers above see it: a single master
 * ({@link NodeClient}), or a Redis or Valkey Cluster whose vote for a key is the answer
 * of the master that owns the key's slot ({@code cluster.ClusterMember}). Every key a
 * script names for one lock key holds the same hash tag ({@link KeyLayout}), so a call is
 * routed by the slot of its first key; what depends on the key without naming it (the
 * restart guard's marker and floor, whether a vote may come in time) takes the key's slot
 * ({@link KeyLayout#slot}), which a single master ignores.
 * <p>
 * <b>Invariants.</b> A member answers each call once, from one master: a cluster member
 * never follows a redirect of a call that counts toward a quorum
 * ({@link Script#counts()}) to a second master, so that a member never votes twice for
 * one attempt.
 *
 * @author redlock contributors
 */
public interface QuorumMember {

	/**
	 * Starts connecting, unless connected or connecting already.
	 * @return a future that completes, never exceptionally, when this attempt ends
	 */
	CompletableFuture<Void> connect();

	/**
	 * Runs a script on the master that answers for the slot of {@code keys[0]} and hands
	 * the reply, or why there is none, to {@code replies}, once, with {@code index}.
	 */
	void eval(Script script, String[] keys, String[] args, int index, NodeClient.ReplyHandler replies);

	/**
	 * Runs a script as
	 * {@link #eval(Script, String[], String[], int, NodeClient.ReplyHandler)} does.
	 * @return a future that completes, never exceptionally, with the reply or why there
	 * is none
	 */
	default CompletableFuture<NodeReply> eval(Script script, String[] keys, String... args) {
		CompletableFuture<NodeReply> result = new CompletableFuture<>();
		eval(script, keys, args, 0, (index, reply) -> result.complete(reply));
		return result;
	}

	/**
	 * Runs a script whose reply is a list, such as {@link Script#INSPECT}. Nothing on the
	 * lock path uses it.
	 */
	CompletableFuture<List<Object>> evalList(Script script, String[] keys, String... args);

	/**
	 * Says whether this member counts toward a quorum now, for health and
	 * {@code checkNodes}.
	 * @return a future that completes, never exceptionally, within the node timeout
	 */
	CompletableFuture<NodeStatus> check();

	NodeFailure classify(Throwable ex);

	/**
	 * Returns the marker this client last saw for the slot, which the acquire scripts
	 * check; empty when the guard is off or none is known.
	 */
	String marker(int slot);

	/**
	 * Returns the least fencing token the slot's master may hand out, sent with the
	 * {@link #marker(int) marker} only.
	 */
	String floor(int slot);

	/**
	 * Returns whether the master of the slot may count toward a quorum by
	 * {@code deadline} ({@link System#nanoTime()}).
	 */
	boolean mayCountBy(int slot, long deadline);

	/**
	 * Returns whether the member's connections are up now, as the last connection events
	 * said: for a cluster, to every master that owns slots.
	 */
	boolean isUp();

	/**
	 * Returns whether the member counts toward quorums now for every key: for a cluster,
	 * every master that owns slots does.
	 */
	boolean isTrusted();

	/**
	 * Returns whether the member is silent: for a cluster, a master that owns slots is.
	 */
	boolean isSilent();

	/**
	 * Returns when the member will count again for every key, as
	 * {@link System#nanoTime()}, or {@link Long#MAX_VALUE} while that is not known.
	 */
	long countsFrom();

	/**
	 * Returns whether the clock of the member (of a master of it) keeps it out of quorums
	 * now, having jumped or being far off the others' ({@link NodeClock}); asks no node.
	 */
	boolean clockKeepsOut();

	/**
	 * Returns what keeps the member (a master of it) out of quorums, for a summary, or
	 * {@code null}.
	 */
	NodeTrust.@Nullable GuardCause guardCause();

	/**
	 * Returns whether a connection is open at this instant.
	 */
	boolean isConnected();

	/**
	 * Opens a publish/subscribe connection for release hints: on a cluster, to one of its
	 * masters, since a cluster delivers what is published on any node to every node.
	 */
	CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub();

	/**
	 * Closes every connection and client.
	 */
	CompletableFuture<Void> closeAsync();

	/**
	 * Closes the connections but keeps the clients, which {@link #reopen()} lets connect
	 * again.
	 */
	CompletableFuture<Void> stopAsync();

	/**
	 * Lets a stopped member connect again, on the next {@link #connect()}.
	 */
	void reopen();

	/**
	 * Runs {@code action} between the trust check and the send of every later script: a
	 * test seam.
	 */
	void afterTrustCheck(Runnable action);

}
