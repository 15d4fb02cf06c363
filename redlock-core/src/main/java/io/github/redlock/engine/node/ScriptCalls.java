package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.node.ConnectionGenerations.Generation;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

/**
 * Script calls to one node, which never fail but answer a {@link NodeReply} within the
 * node timeout: by SHA with the text sent again on NOSCRIPT, refused at once to a node
 * that is down, silent or untrusted, and void when the connection generation they were
 * sent on has ended ({@link ConnectionGenerations}). Tells the {@link NodeSilence} what
 * became of each, and counts them {@link InFlight} for closing.
 *
 * @author redlock contributors
 */
final class ScriptCalls {

	private final String node;

	private final NodeConnection connection;

	private final ConnectionGenerations generations;

	private final NodeTrust trust;

	private final NodeSilence silence;

	private final NodeErrors errors;

	private final InFlight inFlight;

	private final ClientResources resources;

	private final Duration nodeTimeout;

	/**
	 * Told when a cluster master answers that it does not serve a key's slot now
	 * ({@link NodeErrors#isRedirect}); {@code null} for a single node.
	 */
	private final @Nullable Runnable redirected;

	/** A test seam: runs between the trust check and the send of a script. */
	private volatile @Nullable Runnable afterTrustCheck;

	ScriptCalls(String node, NodeConnection connection, NodeConnection.NodeParts parts, ClientResources resources,
			Duration nodeTimeout, @Nullable Runnable redirected) {
		this.redirected = redirected;
		this.node = node;
		this.connection = connection;
		this.generations = parts.generations();
		this.trust = parts.trust();
		this.silence = parts.silence();
		this.errors = parts.errors();
		this.inFlight = parts.inFlight();
		this.resources = resources;
		this.nodeTimeout = nodeTimeout;
	}

	/**
	 * Runs a script on this node and hands the reply, or why there is none, to
	 * {@code replies}, once, with {@code index}.
	 */
	void eval(Script script, String[] keys, String[] args, int index, NodeClient.ReplyHandler replies) {
		StatefulRedisConnection<String, String> current = this.connection.current();
		if (current == null) {
			this.connection.connectIfDue();
			replies.reply(index, NodeReply.failed(this.connection.notConnected()));
			return;
		}
		if (!current.isOpen()) {
			// down (Lettuce is reconnecting): that, not the trust, is what to report
			replies.reply(index, NodeReply.failed(disconnected()));
			return;
		}
		// the generation first: the trust must vouch for that connection, and a drop
		// after this voids the reply
		Generation sentOn = this.generations.current();
		if (script.counts()) {
			NodeFailure silent = this.silence.failure();
			if (silent != null) {
				// before the trust, which may send a check: nothing goes to a silent node
				// but deletions of values sent before (the fleet's deletions send none
				// for a value refused here)
				replies.reply(index, NodeReply.unsent(silent));
				return;
			}
			NodeFailure untrusted = this.trust.untrusted(sentOn);
			if (untrusted != null) {
				replies.reply(index, NodeReply.failed(untrusted));
				return;
			}
		}
		Runnable seam = this.afterTrustCheck;
		if (seam != null) {
			seam.run();
		}
		if (script.deletes()) {
			if (replies instanceof NodeClient.DeletionDeadline deadline) {
				deadline.sending(index);
			}
			else {
				replies = new DeletionReply(index, replies, this.resources, this.nodeTimeout, this.errors);
			}
		}
		NodeClient.ReplyHandler handler = replies;
		try {
			this.<Long>run(current, new ScriptArgs(script, keys, args, replies.timeoutNanos(), false),
					ScriptOutputType.INTEGER, (value, ex) -> {
						if (!sentOn.stillCurrent()) {
							// answered after the connection dropped: by a server that may
							// have
							// restarted since the command was sent, so it proves nothing
							handler.reply(index, NodeReply.failed(reset()));
						}
						else {
							handler.reply(index,
									(ex != null) ? NodeReply.failed(failure(script, ex)) : reply(script, value));
						}
					});
		}
		catch (RuntimeException ex) {
			handler.reply(index, NodeReply.failed(this.errors.classify(ex)));
		}
	}

	/**
	 * Runs a script whose reply is a list, such as {@link Script#INSPECT}. Nothing on the
	 * lock path uses it.
	 */
	CompletableFuture<List<Object>> evalList(Script script, String[] keys, String... args) {
		StatefulRedisConnection<String, String> current = this.connection.current();
		if (current == null) {
			return CompletableFuture
				.failedFuture(new RedisConnectionException(this.connection.notConnected().detail()));
		}
		CompletableFuture<List<Object>> result = new CompletableFuture<>();
		this.<List<Object>>run(current, new ScriptArgs(script, keys, args), ScriptOutputType.MULTI, (value, ex) -> {
			if (ex != null) {
				result.completeExceptionally(ex);
			}
			else {
				result.complete(value);
			}
		});
		return result;
	}

	/**
	 * Runs a script by its SHA and, if the node does not know it (it restarted or flushed
	 * its scripts), by its text, which loads it; each within the timeout the call
	 * carries.
	 */
	<T> void run(StatefulRedisConnection<String, String> connection, ScriptArgs call, ScriptOutputType type,
			BiConsumer<@Nullable T, @Nullable Throwable> done) {
		this.inFlight.sent();
		int epoch = this.silence.epoch();
		boolean deletes = call.script().deletes();
		if (deletes) {
			CommandTimeouts.deleting(true);
		}
		try {
			connection.async().<T>dispatch(CommandType.EVALSHA, output(type), call).whenComplete((value, ex) -> {
				if (ex != null && NodeErrors.isNoScript(ex)) {
					if (deletes) {
						CommandTimeouts.deleting(true);
					}
					try {
						connection.async()
							.<T>dispatch(CommandType.EVAL, output(type), call.byText())
							.whenComplete((retried, retryEx) -> settle(done, retried, retryEx, epoch));
					}
					catch (RuntimeException retryEx) {
						settle(done, null, retryEx, epoch);
					}
					finally {
						CommandTimeouts.deleting(false);
					}
				}
				else {
					settle(done, value, ex, epoch);
				}
			});
		}
		catch (RuntimeException ex) {
			this.inFlight.settled();
			throw ex;
		}
		finally {
			if (deletes) {
				CommandTimeouts.deleting(false);
			}
		}
	}

	/**
	 * Returns the output of a script's reply of {@code type}, as Lettuce's
	 * {@code evalsha} makes it.
	 */
	@SuppressWarnings("unchecked")
	private static <T> CommandOutput<String, String, T> output(ScriptOutputType type) {
		return (CommandOutput<String, String, T>) switch (type) {
			case INTEGER -> new IntegerOutput<>(StringCodec.UTF8);
			case MULTI -> new NestedMultiOutput<>(StringCodec.UTF8);
			default -> throw new IllegalArgumentException("no script of the engine replies " + type);
		};
	}

	private <T> void settle(BiConsumer<@Nullable T, @Nullable Throwable> done, @Nullable T value,
			@Nullable Throwable ex, int epoch) {
		heard(ex, epoch);
		try {
			done.accept(value, ex);
		}
		finally {
			this.inFlight.settled();
		}
	}

	/**
	 * Tells the silence what became of a command sent in {@code epoch}: a reply (a result
	 * or the server's own error) or a timeout. Errors of this client (refused while
	 * disconnected, a full command stack) say nothing of the node.
	 */
	private void heard(@Nullable Throwable ex, int epoch) {
		Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		if (cause == null || cause instanceof RedisCommandExecutionException) {
			this.silence.answered(epoch);
		}
		else if (cause instanceof RedisCommandTimeoutException) {
			this.silence.timedOut(epoch);
		}
	}

	private NodeReply reply(Script script, @Nullable Long value) {
		if (value == null) {
			return NodeReply.failed(new NodeFailure(this.node, NodeFailure.Kind.ERROR, "script returned no integer"));
		}
		if (value == 0 && script.checksMarker()) {
			// the marker is not the one this client knows: the node lost its data since
			this.trust.dataLost();
			return NodeReply.failed(new NodeFailure(this.node, NodeFailure.Kind.RESTARTED,
					"its redlock marker key is gone or changed, so it lost its data; checking it again"));
		}
		return NodeReply.of(value);
	}

	private NodeFailure disconnected() {
		return new NodeFailure(this.node, NodeFailure.Kind.REFUSED, "disconnected; reconnecting");
	}

	private NodeFailure reset() {
		return new NodeFailure(this.node, NodeFailure.Kind.REFUSED,
				"the connection dropped while the command was in flight");
	}

	/**
	 * Says why a script failed; a permission refused puts the node out of quorums until
	 * its trust finds out which one it was. A permission refused to a read-write lock's
	 * or a semaphore's script fails that call only, naming the rules they need: the
	 * exclusive lock may not need them, and keeps the node.
	 */
	NodeFailure failure(Script script, Throwable ex) {
		if (this.redirected != null && NodeErrors.isRedirect(ex)) {
			// never followed: the member's vote for this call is "no" (a vote that went
			// to
			// a second master could count twice), and its view of the cluster is
			// refreshed
			this.redirected.run();
			return new NodeFailure(this.node, NodeFailure.Kind.ERROR, NodeErrors.message(ex)
					+ ": the master does not serve the key's slot now (resharding, a failover, or the cluster is"
					+ " down); no vote from this member until its view of the cluster is refreshed");
		}
		if (NodeErrors.isNoScripting(ex)) {
			return this.trust.scriptDenied(script, ex);
		}
		if (!NodeErrors.isDenied(ex)) {
			return this.errors.classify(ex);
		}
		if (script.sharedLocks()) {
			return new NodeFailure(this.trust.node(), NodeFailure.Kind.NOPERM, "the " + script.name()
					+ " script uses a command or key the ACL user may not: read-write locks and semaphores need "
					+ Script.SHARED_LOCK_RULES + " beside the exclusive lock's rules (" + NodeErrors.message(ex) + ")");
		}
		return this.trust.scriptDenied(script, ex);
	}

	/**
	 * Runs {@code action} between the trust check and the send of every later script: a
	 * seam for tests of what happens when the connection drops just then.
	 */
	void afterTrustCheck(Runnable action) {
		this.afterTrustCheck = action;
	}

}
