package io.github.redlock.engine.node;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.redlock.NodeFailure;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One node's Lettuce client and its multiplexed lock connection: connecting, the grace a
 * dropped connection gets to come back, and closing after what was sent has landed.
 * <p>
 * The connection is made by {@link #connect()} and then kept by Lettuce, which reconnects
 * after a drop; while disconnected, commands are refused at once rather than queued. A
 * node that could not be reached at all is tried again at most once a second, when a
 * command needs it ({@link #connectIfDue()}). Each drop, and each close by the registry,
 * ends a {@link ConnectionGenerations connection generation}. How Lettuce treats the
 * connection is {@link LockClientOptions}'s to say.
 * <p>
 * Longer than the size target: connecting, a drop and its grace, and closing after the
 * sent scripts have landed are one state machine over the same fields (the connection,
 * {@code closed}, {@code disconnectedSince}), which Lettuce's listener threads and the
 * callers' threads both move.
 *
 * @author redlock contributors
 */
final class NodeConnection {

	// the node's log category, which operators know, whichever part of it logs
	private static final Log logger = LogFactory.getLog(NodeClient.class);

	private static final long RECONNECT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * How long a dropped connection may be down before the node is taken for down rather
	 * than reconnecting: twice Lettuce's longest delay between reconnect attempts, so
	 * that a node that restarts in a moment is waited for.
	 */
	private static final long RECONNECT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final NodeAddress address;

	/** The scripts a lock call may send, loaded on every (re)connect. */
	private final List<Script> lockScripts;

	private final RedisClient client;

	private final RedisURI uri;

	private final AtomicBoolean connecting = new AtomicBoolean();

	private volatile @Nullable StatefulRedisConnection<String, String> connection;

	private volatile long lastAttemptNanos;

	private volatile @Nullable NodeFailure lastFailure;

	private final Runnable changed;

	/** When the connection dropped, if it is down now; {@code 0} while it is up. */
	private volatile long disconnectedSince;

	private volatile boolean closed;

	private final NodeTrust trust;

	private final NodeSilence silence;

	private final NodeErrors errors;

	private final ConnectionGenerations generations;

	private final InFlight inFlight;

	private final Duration nodeTimeout;

	/**
	 * When the node last sent anything on any of this client's connections, once one is
	 * made; {@code null} without {@link WriteCoalescing}, which reads it.
	 */
	private volatile WriteCoalescing.@Nullable ReadClock reads;

	NodeConnection(NodeAddress address, ClientResources resources, Duration nodeTimeout, Duration deletionTimeout,
			Duration connectTimeout, SilentNodes silentNodes, Consumer<ClientOptions.Builder> customizer,
			NodeParts parts, List<Script> lockScripts, Runnable changed) {
		this.address = address;
		this.lockScripts = lockScripts;
		this.nodeTimeout = nodeTimeout;
		this.trust = parts.trust();
		this.silence = parts.silence();
		this.errors = parts.errors();
		this.generations = parts.generations();
		this.inFlight = parts.inFlight();
		this.changed = changed;
		this.uri = address.uri();
		this.uri.setTimeout(connectTimeout);
		this.client = RedisClient.create(resources, this.uri);
		this.client
			.setOptions(LockClientOptions.of(nodeTimeout, deletionTimeout, connectTimeout, silentNodes, customizer));
		WriteCoalescing coalescing = WriteCoalescing.of(resources);
		if (coalescing != null) {
			// on the client: every connection's first event included, and the release
			// hints' connection reads from the same server
			this.client.addListener(new RedisConnectionStateListener() {

				@Override
				public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress remote) {
					if (remote != null) {
						NodeConnection.this.reads = coalescing.lastRead(remote);
					}
				}

			});
		}
	}

	/**
	 * What a node's connection works with, made before it: the trust and the silence read
	 * the connection back.
	 */
	record NodeParts(NodeTrust trust, NodeSilence silence, NodeErrors errors, ConnectionGenerations generations,
			InFlight inFlight) {
	}

	/** Returns the lock connection, or {@code null} while there is none. */
	@Nullable StatefulRedisConnection<String, String> current() {
		return this.connection;
	}

	/**
	 * Returns when the node last sent anything, late replies included
	 * ({@link System#nanoTime()}), or {@link Long#MIN_VALUE} if that is not known.
	 */
	long lastRead() {
		WriteCoalescing.ReadClock clock = this.reads;
		return (clock != null) ? clock.readAt() : Long.MIN_VALUE;
	}

	boolean isClosed() {
		return this.closed;
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
			NodeConnection.this.generations.moveOn();
			if (NodeConnection.this.closed || this.connection != NodeConnection.this.connection) {
				// the registry closes this connection itself (stopping or closing), or
				// closed it before: the node is not down
				return;
			}
			if (NodeConnection.this.disconnectedSince == 0) {
				NodeConnection.this.disconnectedSince = System.nanoTime() | 1;
			}
			NodeConnection.this.changed.run();
			if (logger.isDebugEnabled()) {
				logger.debug("Disconnected from " + NodeConnection.this.address + " at " + System.nanoTime());
			}
		}

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
			NodeConnection.this.disconnectedSince = 0;
			StatefulRedisConnection<String, String> current = NodeConnection.this.connection;
			if (current != null) {
				// reconnected, perhaps to a server that restarted since
				preload(current);
			}
			NodeConnection.this.silence.reconnected();
			// checked now, not at the next command that needs the node: a node that
			// restarted is guarded from when it came back, and counts again one guard
			// time after that
			NodeConnection.this.trust.verify();
			NodeConnection.this.changed.run();
		}

	}

	/**
	 * Starts connecting, unless connected or connecting already.
	 * @return a future that completes, never exceptionally, when this attempt ends
	 */
	// a failure to connect has a detail: classify() gives every kind one
	@SuppressWarnings("NullAway")
	CompletableFuture<Void> connect() {
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
			preload(connection);
			// a node silent when the registry stopped is probed on the new connection
			this.silence.reconnected();
			return this.trust.verify().thenApply((ignored) -> connection);
		}).handle((connection, ex) -> {
			if (ex != null) {
				NodeFailure failure = this.errors.classify(ex);
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

	/**
	 * Connects again if a command needs the node while it has no connection, and the last
	 * attempt was long enough ago.
	 */
	void connectIfDue() {
		if (!this.closed && System.nanoTime() - this.lastAttemptNanos > RECONNECT_INTERVAL_NANOS) {
			connect();
		}
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
	 * Has the node load the lock path's scripts, unless the registry closed this client.
	 */
	private void preload(StatefulRedisConnection<String, String> connection) {
		if (!this.closed) {
			ScriptPreload.load(connection, this.lockScripts, this.trust.markerKey(), this.address);
		}
	}

	/**
	 * Returns why there is no connection: the last attempt's failure, or that none was
	 * made yet.
	 */
	NodeFailure notConnected() {
		NodeFailure failure = this.lastFailure;
		return (failure != null) ? failure
				: new NodeFailure(this.address.toString(), NodeFailure.Kind.REFUSED, "not connected yet");
	}

	/**
	 * Returns whether the connection is open at this instant (unlike {@link #isUp()},
	 * which follows connection events).
	 */
	boolean isConnected() {
		StatefulRedisConnection<String, String> current = this.connection;
		return current != null && current.isOpen();
	}

	/**
	 * Returns whether the node's connection is up now, as the last connection event said.
	 */
	boolean isUp() {
		return !this.closed && this.connection != null && this.disconnectedSince == 0;
	}

	/**
	 * Returns whether the node may be back soon: it is connected, or its connection
	 * dropped so recently that Lettuce may yet reconnect (a node that refused the first
	 * connection, or has been down for a while, is not expected back).
	 */
	boolean mayBeBack() {
		if (this.closed || this.connection == null) {
			return false;
		}
		long since = this.disconnectedSince;
		return since == 0 || System.nanoTime() - since <= RECONNECT_GRACE_NANOS;
	}

	/**
	 * Closes the connection and the client.
	 */
	CompletableFuture<Void> closeAsync() {
		return drainAndClose().thenCompose((ignored) -> this.client.shutdownAsync(0, 2, TimeUnit.SECONDS))
			.exceptionally((ex) -> null);
	}

	/**
	 * Closes the connection but keeps the client, which {@link #reopen()} lets connect
	 * again. The connection's generation moves on, so that the trust vouches for no later
	 * connection before it checked it: the server may restart while stopped.
	 */
	CompletableFuture<Void> stopAsync() {
		return drainAndClose().thenRun(this.generations::moveOn);
	}

	/**
	 * Lets a stopped client connect again, on the next {@link #connect()}.
	 */
	void reopen() {
		this.inFlight.reopen();
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
		return this.inFlight.drain(this.nodeTimeout).thenCompose((ignored) -> closeConnection());
	}

	private CompletableFuture<Void> closeConnection() {
		StatefulRedisConnection<String, String> current = this.connection;
		this.connection = null;
		CompletableFuture<Void> closing = (current != null) ? current.closeAsync()
				: CompletableFuture.completedFuture(null);
		return closing.exceptionally((ex) -> null);
	}

	/**
	 * Opens a publish/subscribe connection to this node, for release hints: a connection
	 * of its own, since a subscribed connection runs no other command. Lettuce subscribes
	 * it again after a reconnect.
	 */
	CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		try {
			return this.client.connectPubSubAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
