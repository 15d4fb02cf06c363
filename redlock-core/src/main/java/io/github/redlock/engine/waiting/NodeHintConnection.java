package io.github.redlock.engine.waiting;

import io.github.redlock.engine.node.QuorumMember;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One node's publish/subscribe connection for {@link ReleaseHints}, opened when first
 * needed, and the channels it is asked to subscribe to there. It logs under
 * {@link ReleaseHints}' category.
 * <p>
 * <b>Invariants.</b> It asks again, with its back-off, for every channel wanted and not
 * given (a second later, then twice as long each time up to {@link #RETRY_MAX_NANOS}),
 * until the channel is unwanted or the hints close; a subscription given after its
 * channel was unwanted is undone. The connection is opened again at most every
 * {@link #RECONNECT_INTERVAL_NANOS} after it failed. A refusal is said once per
 * connection, until {@link #forget()}.
 *
 * @author redlock contributors
 */
final class NodeHintConnection {

	private static final Log logger = LogFactory.getLog(ReleaseHints.class);

	private static final long RECONNECT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final long RETRY_FIRST_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final long RETRY_MAX_NANOS = TimeUnit.SECONDS.toNanos(30);

	private final ScheduledExecutorService scheduler;

	/** Whether the hints are closed: nothing is asked for again then. */
	private final BooleanSupplier closed;

	/**
	 * Given each message (channel, message), and (channel, {@code null}) after a
	 * subscription given late.
	 */
	private final BiConsumer<String, String> hints;

	private final QuorumMember node;

	private @Nullable CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection;

	private long connectedAt;

	private boolean refusalSaid;

	/** The channels wanted, each with the delay before asking again if refused. */
	private final Map<String, Long> wanted = new HashMap<>();

	NodeHintConnection(QuorumMember node, ScheduledExecutorService scheduler, BooleanSupplier closed,
			BiConsumer<String, String> hints) {
		this.node = node;
		this.scheduler = scheduler;
		this.closed = closed;
		this.hints = hints;
	}

	private synchronized CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection() {
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> current = this.connection;
		boolean failed = current != null && current.isCompletedExceptionally();
		if (current == null || (failed && System.nanoTime() - this.connectedAt > RECONNECT_INTERVAL_NANOS)) {
			this.connectedAt = System.nanoTime();
			current = this.node.connectPubSub().thenApply((opened) -> {
				opened.addListener(new RedisPubSubAdapter<>() {

					@Override
					public void message(String channel, String message) {
						NodeHintConnection.this.hints.accept(channel, message);
					}

				});
				if (this.closed.getAsBoolean()) {
					opened.closeAsync();
				}
				return opened;
			});
			this.connection = current;
		}
		return current;
	}

	/**
	 * Subscribes to the channel, and keeps asking while it is wanted if the node refuses
	 * or cannot be reached: a second later, then twice as long each time up to
	 * {@link #RETRY_MAX_NANOS}. Completes when the first attempt answered.
	 */
	CompletableFuture<Boolean> subscribe(String channel) {
		synchronized (this) {
			this.wanted.put(channel, RETRY_FIRST_NANOS);
		}
		return send(channel);
	}

	private CompletableFuture<Boolean> send(String channel) {
		return connection().thenCompose((opened) -> opened.async().subscribe(channel).toCompletableFuture())
			.handle((ignored, ex) -> {
				if (ex != null) {
					refused(ex);
					retryLater(channel);
					return false;
				}
				if (!wanted(channel)) {
					// unwanted while the subscription was on its way (or the
					// connection opening): unsubscribe() may have sent nothing
					sendUnsubscribe(channel);
				}
				return true;
			});
	}

	private synchronized boolean wanted(String channel) {
		return this.wanted.containsKey(channel);
	}

	private void retryLater(String channel) {
		long delay;
		synchronized (this) {
			Long current = this.wanted.get(channel);
			if (current == null || this.closed.getAsBoolean()) {
				return;
			}
			delay = current;
			this.wanted.put(channel, Math.min(current * 2, RETRY_MAX_NANOS));
		}
		try {
			this.scheduler.schedule(() -> {
				if (wanted(channel) && !this.closed.getAsBoolean()) {
					// a release published while this node was not subscribed is
					// missed: the waiter tries once more once subscribed
					send(channel).thenAccept((subscribed) -> {
						if (subscribed) {
							this.hints.accept(channel, null);
						}
					});
				}
			}, delay, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// closing
		}
	}

	void unsubscribe(String channel) {
		synchronized (this) {
			this.wanted.remove(channel);
		}
		sendUnsubscribe(channel);
	}

	private void sendUnsubscribe(String channel) {
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> current;
		synchronized (this) {
			current = this.connection;
		}
		if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
			current.join().async().unsubscribe(channel);
		}
	}

	private void refused(Throwable ex) {
		boolean say;
		synchronized (this) {
			say = !this.refusalSaid;
			this.refusalSaid = true;
		}
		if (say && !this.closed.getAsBoolean()) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			logger.info("Redlock node " + this.node + " gives no release hints (" + cause.getMessage()
					+ "): waiters for locks and permits held by other processes poll it, every retry delay plus"
					+ " jitter and never later than the holder's remaining time to live");
		}
	}

	/**
	 * Forgets the closed connection and the wanted channels, so that the next
	 * subscription opens a new connection.
	 */
	synchronized void forget() {
		this.connection = null;
		this.wanted.clear();
		this.refusalSaid = false;
	}

	synchronized CompletableFuture<?> close() {
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> current = this.connection;
		if (current == null) {
			return CompletableFuture.completedFuture(null);
		}
		return current.thenCompose((opened) -> opened.closeAsync()).exceptionally((ex) -> null);
	}

}
