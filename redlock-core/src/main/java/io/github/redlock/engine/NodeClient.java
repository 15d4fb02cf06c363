package io.github.redlock.engine;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.NodeFailure;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
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
 *
 * @author redlock contributors
 */
final class NodeClient {

	private static final Log logger = LogFactory.getLog(NodeClient.class);

	private static final long RECONNECT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final NodeAddress address;

	private final RedisClient client;

	private final RedisURI uri;

	private final String timeoutDetail;

	private final AtomicBoolean connecting = new AtomicBoolean();

	private volatile StatefulRedisConnection<String, String> connection;

	private volatile long lastAttemptNanos;

	private volatile String lastError = "not connected yet";

	private volatile boolean closed;

	NodeClient(NodeAddress address, ClientResources resources, Duration nodeTimeout, Duration connectTimeout) {
		this.address = address;
		this.uri = address.uri();
		this.uri.setTimeout(connectTimeout);
		this.client = RedisClient.create(resources, this.uri);
		this.client.setOptions(ClientOptions.builder()
			.autoReconnect(true)
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.timeoutOptions(TimeoutOptions.enabled(nodeTimeout))
			.socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build())
			.build());
		this.timeoutDetail = "after " + nodeTimeout.toMillis() + "ms";
	}

	/**
	 * Starts connecting, unless connected or connecting already.
	 * @return a future that completes, never exceptionally, when this attempt ends
	 */
	CompletableFuture<Void> connect() {
		if (this.connection != null || this.closed || !this.connecting.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		this.lastAttemptNanos = System.nanoTime();
		CompletableFuture<StatefulRedisConnection<String, String>> attempt;
		try {
			attempt = this.client.connectAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			attempt = CompletableFuture.failedFuture(ex);
		}
		return attempt.handle((connection, ex) -> {
			if (ex == null) {
				if (this.closed) {
					connection.closeAsync();
				}
				else {
					this.connection = connection;
					logger.debug("Connected to redlock node " + this.address);
				}
			}
			else {
				String error = classify(ex).detail();
				if (!error.equals(this.lastError)) {
					logger.warn("Cannot connect to redlock node " + this.address + ": " + error
							+ "; it does not count toward a quorum until it can be reached");
				}
				this.lastError = error;
			}
			this.connecting.set(false);
			return null;
		});
	}

	/**
	 * Runs a script on this node.
	 * @return a future that completes, never exceptionally, with the reply or why there
	 * is none
	 */
	CompletableFuture<NodeReply> eval(Script script, String[] keys, String... args) {
		StatefulRedisConnection<String, String> current = this.connection;
		if (current == null) {
			if (!this.closed && System.nanoTime() - this.lastAttemptNanos > RECONNECT_INTERVAL_NANOS) {
				connect();
			}
			return CompletableFuture.completedFuture(
					NodeReply.failed(new NodeFailure(toString(), NodeFailure.Kind.REFUSED, this.lastError)));
		}
		CompletableFuture<NodeReply> result = new CompletableFuture<>();
		try {
			RedisFuture<Long> call = current.async().evalsha(script.sha(), ScriptOutputType.INTEGER, keys, args);
			call.whenComplete((value, ex) -> {
				if (ex == null) {
					result.complete(reply(value));
				}
				else if (isNoScript(ex)) {
					// the node restarted or flushed its scripts: send the text, which
					// loads it
					current.async()
						.<Long>eval(script.text(), ScriptOutputType.INTEGER, keys, args)
						.whenComplete((retried, retryEx) -> result
							.complete((retryEx != null) ? NodeReply.failed(classify(retryEx)) : reply(retried)));
				}
				else {
					result.complete(NodeReply.failed(classify(ex)));
				}
			});
		}
		catch (RuntimeException ex) {
			result.complete(NodeReply.failed(classify(ex)));
		}
		return result;
	}

	private NodeReply reply(Long value) {
		return (value != null) ? NodeReply.of(value)
				: NodeReply.failed(new NodeFailure(toString(), NodeFailure.Kind.ERROR, "script returned no integer"));
	}

	private static boolean isNoScript(Throwable ex) {
		Throwable cause = unwrap(ex);
		return cause instanceof RedisNoScriptException
				|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
	}

	NodeFailure classify(Throwable ex) {
		Throwable cause = unwrap(ex);
		if (cause instanceof RedisCommandTimeoutException) {
			return new NodeFailure(toString(), NodeFailure.Kind.TIMEOUT, this.timeoutDetail);
		}
		if (cause instanceof RedisCommandExecutionException) {
			return new NodeFailure(toString(), NodeFailure.Kind.ERROR, cause.getMessage());
		}
		if (cause instanceof RedisConnectionException || cause instanceof IOException || isDisconnected(cause)) {
			Throwable root = cause;
			while (root.getCause() != null && root.getCause() != root) {
				root = root.getCause();
			}
			String message = (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
			return new NodeFailure(toString(), NodeFailure.Kind.REFUSED, message);
		}
		return new NodeFailure(toString(), NodeFailure.Kind.ERROR,
				(cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getSimpleName());
	}

	private static boolean isDisconnected(Throwable cause) {
		String message = cause.getMessage();
		return message != null && (message.contains("not connected") || message.contains("Connection closed")
				|| message.contains("Connection is closed"));
	}

	private static Throwable unwrap(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	boolean isConnected() {
		StatefulRedisConnection<String, String> current = this.connection;
		return current != null && current.isOpen();
	}

	/**
	 * Closes the connection and the client.
	 */
	CompletableFuture<Void> closeAsync() {
		this.closed = true;
		StatefulRedisConnection<String, String> current = this.connection;
		this.connection = null;
		CompletableFuture<Void> closing = (current != null) ? current.closeAsync()
				: CompletableFuture.completedFuture(null);
		return closing.exceptionally((ex) -> null)
			.thenCompose((ignored) -> this.client.shutdownAsync(0, 2, TimeUnit.SECONDS))
			.exceptionally((ex) -> null);
	}

	@Override
	public String toString() {
		return this.address.toString();
	}

}
