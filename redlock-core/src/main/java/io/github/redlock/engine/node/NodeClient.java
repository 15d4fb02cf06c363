package io.github.redlock.engine.node;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import io.github.redlock.NodeFailure;
import io.github.redlock.engine.NodeStatus;
import io.github.redlock.engine.node.ConnectionGenerations.Generation;
import io.github.redlock.engine.quorum.NodeFleet;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One node: a Lettuce client with one multiplexed connection, and script calls that never
 * fail their future but answer a {@link NodeReply}, within the per-node timeout.
 * <p>
 * The connection is made by {@link #connect()} and then kept by Lettuce, which reconnects
 * after a drop; while disconnected, commands are refused at once rather than queued. A
 * node that could not be reached at all is tried again at most once a second, when a
 * command needs it.
 * <p>
 * Whether the node counts toward a quorum is {@link NodeTrust}'s to say, whether it has
 * gone silent (timed out again and again, as behind a black hole) {@link NodeSilence}'s,
 * and what a failure means is {@link NodeErrors}'s. Lettuce's command stack is bounded
 * ({@link #REQUEST_QUEUE_SIZE}) in case a node stops answering faster than its silence is
 * noticed. What is left here is longer than most classes of the engine because
 * connecting, sending a script with its NOSCRIPT reload, and letting sent scripts land
 * before closing all touch the same connection state.
 *
 * @author redlock contributors
 */
public final class NodeClient {

	private static final Log logger = LogFactory.getLog(NodeClient.class);

	private static final long RECONNECT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * Most commands one connection keeps sent and unanswered (Lettuce's
	 * {@code requestQueueSize}); more are refused at once. A backstop:
	 * {@link NodeSilence} stops sending to a node that does not answer long before, while
	 * a healthy node answers in a fraction of the node timeout. Large enough for bursts a
	 * healthy node takes: ten thousand leases extended at once put as many commands in
	 * flight to every node.
	 */
	static final int REQUEST_QUEUE_SIZE = 50_000;

	/**
	 * How long a dropped connection may be down before the node is taken for down rather
	 * than reconnecting: twice Lettuce's longest delay between reconnect attempts, so
	 * that a node that restarts in a moment is waited for.
	 */
	private static final long RECONNECT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final NodeAddress address;

	private final RedisClient client;

	private final RedisURI uri;

	private final AtomicBoolean connecting = new AtomicBoolean();

	private volatile StatefulRedisConnection<String, String> connection;

	private volatile long lastAttemptNanos;

	private volatile NodeFailure lastFailure;

	private final Runnable changed;

	/** When the connection dropped, if it is down now; {@code 0} while it is up. */
	private volatile long disconnectedSince;

	private volatile boolean closed;

	private final NodeTrust trust;

	private final NodeSilence silence;

	/**
	 * When the node last sent anything on any of this client's connections, once one is
	 * made; {@code null} without {@link WriteCoalescing}, which reads it.
	 */
	private volatile WriteCoalescing.ReadClock reads;

	private final NodeErrors errors;

	/**
	 * The lock connection's generations: one ends at each drop, and when the registry
	 * stops and closes the connection itself.
	 */
	private final ConnectionGenerations generations = new ConnectionGenerations();

	private final Duration nodeTimeout;

	private final ClientResources resources;

	/** A test seam: runs between the trust check and the send of a script. */
	private volatile Runnable afterTrustCheck;

	/** Scripts sent and not yet answered, so that closing can let them land. */
	private final AtomicInteger pending = new AtomicInteger();

	private volatile CompletableFuture<Void> drained;

	public NodeClient(NodeAddress address, ClientResources resources, Duration nodeTimeout, Duration deletionTimeout,
			Duration connectTimeout, RestartGuard guard, ServerIdentities identities, boolean acceptEviction,
			SilentNodes silentNodes, Consumer<ClientOptions.Builder> customizer, Runnable changed) {
		this.changed = changed;
		this.resources = resources;
		this.address = address;
		this.nodeTimeout = nodeTimeout;
		this.uri = address.uri();
		this.uri.setTimeout(connectTimeout);
		this.client = RedisClient.create(resources, this.uri);
		ClientOptions.Builder options = ClientOptions.builder()
			.autoReconnect(true)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.timeoutOptions(TimeoutOptions.builder()
				.timeoutSource(
						new Timeouts(nodeTimeout, NodeSilence.probeTimeout(nodeTimeout, silentNodes), deletionTimeout))
				.build())
			// never replay a command after a reconnect: the server may have restarted and
			// lost the locks, and a late answer must not count toward a quorum
			.replayFilter((command) -> true)
			// what a node that stopped answering can hold (NodeSilence stops it sooner)
			.requestQueueSize(REQUEST_QUEUE_SIZE)
			.socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build());
		customizer.accept(options);
		this.client.setOptions(options.build());
		this.errors = new NodeErrors(address.toString(), "after " + nodeTimeout.toMillis() + "ms");
		this.trust = new NodeTrust(address.toString(), guard, resources, () -> this.connection, this.generations,
				identities, acceptEviction, changed);
		this.silence = new NodeSilence(address.toString(), silentNodes, nodeTimeout, resources, () -> this.connection,
				this::lastRead, changed);
		WriteCoalescing coalescing = WriteCoalescing.of(resources);
		if (coalescing != null) {
			// on the client: every connection's first event included, and the release
			// hints' connection reads from the same server
			this.client.addListener(new RedisConnectionStateListener() {

				@Override
				public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress remote) {
					if (remote != null) {
						NodeClient.this.reads = coalescing.lastRead(remote);
					}
				}

			});
		}
	}

	/**
	 * Returns when the node last sent anything, late replies included
	 * ({@link System#nanoTime()}), or {@link Long#MIN_VALUE} if that is not known.
	 */
	private long lastRead() {
		WriteCoalescing.ReadClock clock = this.reads;
		return (clock != null) ? clock.readAt() : Long.MIN_VALUE;
	}

	/**
	 * The node timeout for every command but a {@code TIME}, which only
	 * {@link NodeSilence} sends as its probe: it waits as long as
	 * {@link NodeSilence#probeTimeout}, so that a node that answers late on a busy
	 * machine is not taken for silent again; and but a deletion
	 * ({@link Script#deletes()}), which Lettuce keeps for as long as any entry it deletes
	 * can live (the maximum TTL). Lettuce never writes a command that timed out before
	 * its turn: with the node timeout, a release handed to an I/O thread that a loaded
	 * machine does not run for longer than that would be dropped, and the lock would stay
	 * on the node until its TTL. Whoever waits for a deletion still hears of it within
	 * the node timeout ({@link DeletionReply}).
	 */
	private static final class Timeouts extends TimeoutOptions.TimeoutSource {

		/**
		 * Set while this thread hands Lettuce a deletion: Lettuce asks for a command's
		 * timeout on the thread that sends it.
		 */
		private static final ThreadLocal<boolean[]> DELETING = ThreadLocal.withInitial(() -> new boolean[1]);

		/**
		 * Marks this thread as handing Lettuce a deletion, or no longer: a flag in a
		 * per-thread array, as a set and remove of the thread-local made a map entry for
		 * every deletion sent.
		 */
		static void deleting(boolean deleting) {
			DELETING.get()[0] = deleting;
		}

		private final long nodeTimeoutNanos;

		private final long probeTimeoutNanos;

		private final long deletionTimeoutNanos;

		Timeouts(Duration nodeTimeout, Duration probeTimeout, Duration deletionTimeout) {
			this.nodeTimeoutNanos = nodeTimeout.toNanos();
			this.probeTimeoutNanos = probeTimeout.toNanos();
			this.deletionTimeoutNanos = deletionTimeout.toNanos();
		}

		@Override
		public long getTimeout(RedisCommand<?, ?, ?> command) {
			if (DELETING.get()[0]) {
				return this.deletionTimeoutNanos;
			}
			return (command != null && command.getType() == CommandType.TIME) ? this.probeTimeoutNanos
					: this.nodeTimeoutNanos;
		}

		@Override
		public TimeUnit getTimeUnit() {
			return TimeUnit.NANOSECONDS;
		}

	}

	/**
	 * Hears the lock connection's drops and reconnects: registered on that connection
	 * alone, so that the client's other connections (the release hints' publish/subscribe
	 * one) say nothing of the node.
	 */
	private final class LockConnectionListener implements RedisConnectionStateListener {

		private final StatefulRedisConnection<String, String> connection;

		LockConnectionListener(StatefulRedisConnection<String, String> connection) {
			this.connection = connection;
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
			// whatever answers after the reconnect may be a restarted server
			// the trust vouched for the old generation only
			NodeClient.this.generations.moveOn();
			if (NodeClient.this.closed || this.connection != NodeClient.this.connection) {
				// the registry closes this connection itself (stopping or closing), or
				// closed it before: the node is not down
				return;
			}
			if (NodeClient.this.disconnectedSince == 0) {
				NodeClient.this.disconnectedSince = System.nanoTime() | 1;
			}
			NodeClient.this.changed.run();
			if (logger.isDebugEnabled()) {
				logger.debug("Disconnected from " + NodeClient.this.address + " at " + System.nanoTime());
			}
		}

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
			NodeClient.this.disconnectedSince = 0;
			StatefulRedisConnection<String, String> current = NodeClient.this.connection;
			if (current != null) {
				// reconnected, perhaps to a server that restarted since
				loadScripts(current);
			}
			NodeClient.this.silence.reconnected();
			NodeClient.this.changed.run();
		}

	}

	/**
	 * Starts connecting, unless connected or connecting already.
	 * @return a future that completes, never exceptionally, when this attempt ends
	 */
	public CompletableFuture<Void> connect() {
		if (this.connection != null || this.closed || !this.connecting.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		this.lastAttemptNanos = System.nanoTime();
		// Lettuce may report a handshake that the node refused (WRONGPASS) as "Connection
		// closed prematurely", when the channel's close wins the race with the error:
		// such a connect is tried once more, for its cause
		CompletableFuture<StatefulRedisConnection<String, String>> attempt = connectOnce()
			.exceptionallyCompose((ex) -> closedPrematurely(ex) ? connectOnce() : CompletableFuture.failedFuture(ex));
		return attempt.thenCompose((connection) -> {
			if (this.closed) {
				connection.closeAsync();
				return CompletableFuture.completedFuture(connection);
			}
			connection.addListener(new LockConnectionListener(connection));
			this.connection = connection;
			logger.debug("Connected to redlock node " + this.address);
			loadScripts(connection);
			// a node silent when the registry stopped is probed on the new connection
			this.silence.reconnected();
			return this.trust.verify().thenApply((ignored) -> connection);
		}).handle((connection, ex) -> {
			if (ex != null) {
				NodeFailure failure = classify(ex);
				NodeFailure last = this.lastFailure;
				if (last == null || !failure.detail().equals(last.detail())) {
					logger.warn("Cannot connect to redlock node " + this.address + ": " + failure.describe()
							+ "; it does not count toward a quorum until it can be reached");
				}
				this.lastFailure = failure;
			}
			this.connecting.set(false);
			this.changed.run();
			return null;
		});
	}

	private CompletableFuture<StatefulRedisConnection<String, String>> connectOnce() {
		try {
			return this.client.connectAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static boolean closedPrematurely(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof RedisConnectionException
					&& "Connection closed prematurely".equals(cause.getMessage())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Sends the scripts of the lock path by their text, with arguments that make each
	 * return before it writes anything, so that the node knows them before the first lock
	 * call after a (re)connect. Without this, a node that restarted answered a release's
	 * SHA with NOSCRIPT and the release sent the text again; but a release that timed out
	 * there (the node paused, say) heard that NOSCRIPT too late, and the key stayed on
	 * the node for its time to live.
	 */
	private void loadScripts(StatefulRedisConnection<String, String> connection) {
		if (this.closed) {
			return;
		}
		// a key under the prefix (what the ACL allows) that is never a lock: the marker.
		// The acquire script stops at the marker check, the others at the ownership check
		// (an empty secret never matches)
		String marker = this.trust.markerKey();
		String[] keys = { marker, marker, marker };
		String[] args = { "", "1", "1", "" };
		try {
			for (Script script : Script.LOCK_PATH) {
				connection.async().eval(script.text(), ScriptOutputType.INTEGER, keys, args);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not load the lock scripts on " + this.address, ex);
		}
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
		StatefulRedisConnection<String, String> current = this.connection;
		if (current == null) {
			if (!this.closed && System.nanoTime() - this.lastAttemptNanos > RECONNECT_INTERVAL_NANOS) {
				connect();
			}
			replies.reply(index, NodeReply.failed(notConnected()));
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
				// but deletions of values sent before (NodeFleet's Deletion sends none
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
			if (replies instanceof DeletionDeadline deadline) {
				deadline.sending(index);
			}
			else {
				replies = new DeletionReply(index, replies);
			}
		}
		ReplyHandler handler = replies;
		try {
			this.<Long>run(current, script, ScriptOutputType.INTEGER, keys, args, (value, ex) -> {
				if (!sentOn.stillCurrent()) {
					// answered after the connection dropped: by a server that may have
					// restarted since the command was sent, so it proves nothing
					handler.reply(index, NodeReply.failed(reset()));
				}
				else {
					handler.reply(index, (ex != null) ? NodeReply.failed(failure(script, ex)) : reply(script, value));
				}
			});
		}
		catch (RuntimeException ex) {
			handler.reply(index, NodeReply.failed(classify(ex)));
		}
	}

	/**
	 * Hands on the first of a deletion's reply and the node timeout: the command itself
	 * waits longer in Lettuce ({@link Timeouts}), so that it is written late rather than
	 * never, and its late reply is dropped here.
	 */
	private final class DeletionReply extends AtomicBoolean implements ReplyHandler, TimerTask {

		private final int index;

		private final ReplyHandler replies;

		private final Timeout timeout;

		DeletionReply(int index, ReplyHandler replies) {
			this.index = index;
			this.replies = replies;
			this.timeout = NodeClient.this.resources.timer()
				.newTimeout(this, NodeClient.this.nodeTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}

		@Override
		public void reply(int index, NodeReply reply) {
			if (compareAndSet(false, true)) {
				this.timeout.cancel();
				this.replies.reply(index, reply);
			}
		}

		@Override
		public void run(Timeout timeout) {
			if (!get()) {
				// off the timer's thread, as Lettuce completes its own timeouts
				NodeClient.this.resources.eventExecutorGroup().execute(() -> {
					if (compareAndSet(false, true)) {
						this.replies.reply(this.index,
								NodeReply.failed(classify(new RedisCommandTimeoutException("deletion timed out"))));
					}
				});
			}
		}

	}

	/**
	 * Runs {@code action} between the trust check and the send of every later script: a
	 * seam for tests of what happens when the connection drops just then.
	 */
	public void afterTrustCheck(Runnable action) {
		this.afterTrustCheck = action;
	}

	/**
	 * Says whether this node counts toward a quorum now, running a script that reads the
	 * node marker: what locking needs of the ACL user.
	 * @return a future that completes, never exceptionally, within the node timeout
	 */
	public CompletableFuture<NodeStatus> check() {
		StatefulRedisConnection<String, String> current = this.connection;
		if (this.closed) {
			return CompletableFuture.completedFuture(
					status(false, null, "not connected: the registry is stopped; it connects when started"));
		}
		if (current == null) {
			if (!this.closed && System.nanoTime() - this.lastAttemptNanos > RECONNECT_INTERVAL_NANOS) {
				connect();
			}
			NodeFailure failure = notConnected();
			return CompletableFuture.completedFuture(status(false, null, (failure.kind() == NodeFailure.Kind.REFUSED)
					? "not connected: " + failure.detail() : failure.describe()));
		}
		NodeFailure silent = this.silence.failure();
		if (silent != null) {
			return CompletableFuture.completedFuture(status(false, null, silent.describe()));
		}
		CompletableFuture<NodeStatus> result = new CompletableFuture<>();
		long start = System.nanoTime();
		try {
			// what locking needs: a script, by SHA, reading keys under the prefix
			String marker = this.trust.markerKey();
			this.<List<Object>>run(current, Script.INSPECT, ScriptOutputType.MULTI, new String[] { marker, marker },
					new String[0], (reply, ex) -> {
						if (ex != null) {
							result.complete(status(false, null, failure(Script.INSPECT, ex).describe()));
							return;
						}
						Duration latency = Duration.ofNanos(System.nanoTime() - start);
						NodeFailure untrusted = this.trust.untrusted(this.generations.current());
						result.complete((untrusted != null) ? status(false, latency, untrusted.describe())
								: status(true, latency, null));
					});
		}
		catch (RuntimeException ex) {
			result.complete(status(false, null, classify(ex).describe()));
		}
		return result;
	}

	private NodeFailure notConnected() {
		NodeFailure failure = this.lastFailure;
		return (failure != null) ? failure : new NodeFailure(toString(), NodeFailure.Kind.REFUSED, "not connected yet");
	}

	private NodeStatus status(boolean usable, Duration latency, String problem) {
		return new NodeStatus(toString(), usable, latency, problem, this.address.tlsWarning());
	}

	/**
	 * Runs a script whose reply is a list, such as {@link Script#INSPECT}. Nothing on the
	 * lock path uses it.
	 */
	public CompletableFuture<List<Object>> evalList(Script script, String[] keys, String... args) {
		StatefulRedisConnection<String, String> current = this.connection;
		if (current == null) {
			return CompletableFuture.failedFuture(new RedisConnectionException(notConnected().detail()));
		}
		CompletableFuture<List<Object>> result = new CompletableFuture<>();
		this.<List<Object>>run(current, script, ScriptOutputType.MULTI, keys, args, (value, ex) -> {
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
	 * its scripts), by its text, which loads it.
	 */
	private <T> void run(StatefulRedisConnection<String, String> connection, Script script, ScriptOutputType type,
			String[] keys, String[] args, BiConsumer<T, Throwable> done) {
		this.pending.incrementAndGet();
		int epoch = this.silence.epoch();
		boolean deletes = script.deletes();
		if (deletes) {
			Timeouts.deleting(true);
		}
		try {
			connection.async()
				.<T>dispatch(CommandType.EVALSHA, output(type), new ScriptArgs(script, keys, args))
				.whenComplete((value, ex) -> {
					if (ex != null && NodeErrors.isNoScript(ex)) {
						if (deletes) {
							Timeouts.deleting(true);
						}
						try {
							connection.async()
								.<T>eval(script.text(), type, keys, args)
								.whenComplete((retried, retryEx) -> settle(done, retried, retryEx, epoch));
						}
						catch (RuntimeException retryEx) {
							settle(done, null, retryEx, epoch);
						}
						finally {
							Timeouts.deleting(false);
						}
					}
					else {
						settle(done, value, ex, epoch);
					}
				});
		}
		catch (RuntimeException ex) {
			settle();
			throw ex;
		}
		finally {
			if (deletes) {
				Timeouts.deleting(false);
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

	private <T> void settle(BiConsumer<T, Throwable> done, T value, Throwable ex, int epoch) {
		heard(ex, epoch);
		try {
			done.accept(value, ex);
		}
		finally {
			settle();
		}
	}

	/**
	 * Tells the silence what became of a command sent in {@code epoch}: a reply (a result
	 * or the server's own error) or a timeout. Errors of this client (refused while
	 * disconnected, a full command stack) say nothing of the node.
	 */
	private void heard(Throwable ex, int epoch) {
		Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		if (cause == null || cause instanceof RedisCommandExecutionException) {
			this.silence.answered(epoch);
		}
		else if (cause instanceof RedisCommandTimeoutException) {
			this.silence.timedOut(epoch);
		}
	}

	private void settle() {
		if (this.pending.decrementAndGet() == 0) {
			CompletableFuture<Void> closing = this.drained;
			if (closing != null) {
				closing.complete(null);
			}
		}
	}

	private NodeReply reply(Script script, Long value) {
		if (value == null) {
			return NodeReply.failed(new NodeFailure(toString(), NodeFailure.Kind.ERROR, "script returned no integer"));
		}
		if (value == 0 && script.checksMarker()) {
			// the marker is not the one this client knows: the node lost its data since
			this.trust.dataLost();
			return NodeReply.failed(new NodeFailure(toString(), NodeFailure.Kind.RESTARTED,
					"its redlock marker key is gone or changed, so it lost its data; checking it again"));
		}
		return NodeReply.of(value);
	}

	private NodeFailure disconnected() {
		return new NodeFailure(toString(), NodeFailure.Kind.REFUSED, "disconnected; reconnecting");
	}

	private NodeFailure reset() {
		return new NodeFailure(toString(), NodeFailure.Kind.REFUSED,
				"the connection dropped while the command was in flight");
	}

	public NodeFailure classify(Throwable ex) {
		return this.errors.classify(ex);
	}

	/**
	 * Returns whether the connection is open at this instant (unlike {@link #isUp()},
	 * which follows connection events).
	 */
	public boolean isConnected() {
		StatefulRedisConnection<String, String> current = this.connection;
		return current != null && current.isOpen();
	}

	/**
	 * Says why a script failed; a permission refused puts the node out of quorums until
	 * its trust finds out which one it was. A permission refused to a read-write lock's
	 * or a semaphore's script fails that call only, naming the rules they need: the
	 * exclusive lock may not need them, and keeps the node.
	 */
	private NodeFailure failure(Script script, Throwable ex) {
		if (!NodeErrors.isDenied(ex)) {
			return classify(ex);
		}
		if (script.sharedLocks()) {
			return new NodeFailure(this.trust.node(), NodeFailure.Kind.NOPERM, "the " + script.name()
					+ " script uses a command or key the ACL user may not: read-write locks and semaphores need "
					+ Script.SHARED_LOCK_RULES + " beside the exclusive lock's rules (" + NodeErrors.message(ex) + ")");
		}
		return this.trust.scriptDenied(script, ex);
	}

	/**
	 * Closes the connection and the client.
	 */
	public CompletableFuture<Void> closeAsync() {
		return drainAndClose().thenCompose((ignored) -> this.client.shutdownAsync(0, 2, TimeUnit.SECONDS))
			.exceptionally((ex) -> null);
	}

	/**
	 * Closes the connection but keeps the client, which {@link #reopen()} lets connect
	 * again. The connection's generation moves on, so that the trust vouches for no later
	 * connection before it checked it: the server may restart while stopped.
	 */
	public CompletableFuture<Void> stopAsync() {
		return drainAndClose().thenRun(this.generations::moveOn);
	}

	/**
	 * Lets a stopped client connect again, on the next {@link #connect()}.
	 */
	public void reopen() {
		this.drained = null;
		this.disconnectedSince = 0;
		this.lastAttemptNanos = 0;
		this.silence.reopen();
		this.closed = false;
	}

	private CompletableFuture<Void> drainAndClose() {
		this.closed = true;
		this.silence.close();
		// let what was sent land first, releases above all: a release that quorum has
		// answered may still be on its way to this node (bounded by the node timeout,
		// which fails every command still unanswered)
		CompletableFuture<Void> drained = new CompletableFuture<>();
		this.drained = drained;
		if (this.pending.get() == 0) {
			drained.complete(null);
		}
		return drained.completeOnTimeout(null, this.nodeTimeout.toMillis() + 100, TimeUnit.MILLISECONDS)
			.thenCompose((ignored) -> closeConnection());
	}

	private CompletableFuture<Void> closeConnection() {
		StatefulRedisConnection<String, String> current = this.connection;
		this.connection = null;
		CompletableFuture<Void> closing = (current != null) ? current.closeAsync()
				: CompletableFuture.completedFuture(null);
		return closing.exceptionally((ex) -> null);
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
	 * connected, or its connection dropped so recently that Lettuce may yet reconnect (a
	 * node that refused the first connection, or has been down for a while, is not
	 * expected back), and its trust does not rule it out until after then.
	 */
	public boolean mayCountBy(long deadline) {
		if (this.closed || this.connection == null) {
			return false;
		}
		long since = this.disconnectedSince;
		return (since == 0 || System.nanoTime() - since <= RECONNECT_GRACE_NANOS) && this.trust.mayCountBy(deadline);
	}

	/**
	 * Returns whether the node's connection is up now, as the last connection event said.
	 */
	public boolean isUp() {
		return !this.closed && this.connection != null && this.disconnectedSince == 0;
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
	 * made per node: NodeFleet's deletions keep one timer for every node.
	 */
	public interface DeletionDeadline extends ReplyHandler {

		/**
		 * The deletion is about to be handed to Lettuce for the node at {@code index}:
		 * its node timeout starts. Not called for a node that fails it at once (not
		 * connected, closed, untrusted).
		 */
		void sending(int index);

	}

	/**
	 * Opens a publish/subscribe connection to this node, for release hints: a connection
	 * of its own, since a subscribed connection runs no other command. Lettuce subscribes
	 * it again after a reconnect.
	 */
	public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		try {
			return this.client.connectPubSubAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
