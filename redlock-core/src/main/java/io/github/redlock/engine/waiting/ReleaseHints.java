package io.github.redlock.engine.waiting;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.QuorumMember;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.quorum.NodeFleet;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Wake-ups across processes: the release script publishes the lease's token on a channel
 * named as the lock's key on the node ({@link KeyLayout#lockKey}, see
 * {@link Script#RELEASE}), and this registry subscribes to that channel on every node,
 * but only while a waiter of its own waits for a holder in another process (the head of
 * the key's line sleeps between attempts, and no lease of this registry holds the key:
 * see {@link Waiting}). A message wakes that waiter at once.
 * <p>
 * Semaphores do the same on a channel of their own ({@link KeyLayout#permitChannel},
 * {@link Script#RELEASE_PERMIT}), under the lock prefix so that one ACL channel pattern
 * allows both, for their own waiting lines: subscribed to while the head of a semaphore's
 * line sleeps and this registry holds fewer of its permits than it has (only then can a
 * permit be held elsewhere). No lock's channel is a semaphore's, so each message goes to
 * the one line of its key.
 * <p>
 * Hints are only hints: a waiter still takes the lock through the quorum, and still
 * polls, so that nothing depends on a message arriving. Each node gets its own
 * publish/subscribe connection, opened the first time a hint is wanted. A subscription is
 * kept for a second after the last waiter for the key stopped wanting it, so that a lock
 * passed back and forth between processes is not subscribed to again each time. Once
 * every node answered a new subscription, the waiter tries once more: the release may
 * have been published before it was subscribed to.
 * <p>
 * A node that refuses to subscribe (a managed service or an ACL that forbids
 * publish/subscribe) or cannot be reached is said once, at INFO; its waiters poll, every
 * {@code retryDelay} plus jitter, never later than the holder's remaining time to live,
 * and the subscription is asked for again while it is wanted: a second later, then twice
 * as long each time, up to every 30 seconds. Once it is given, the waiter tries once
 * more, as for a new subscription.
 * <p>
 * <b>Invariants.</b> A channel's {@code Interest} records which kinds of line want it;
 * the channel is subscribed on the nodes while one does and for the linger after, and
 * unsubscribed only when none does; each node's {@link NodeHintConnection} asks again,
 * with its back-off, for every channel wanted and not given. A message is only ever
 * handed to the lines of its key, and nothing waits on a message arriving.
 *
 * @author redlock contributors
 */
public final class ReleaseHints {

	private static final Log logger = LogFactory.getLog(ReleaseHints.class);

	private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** Which lines want a channel: {@link #locks()}'s or {@link #permits()}'s. */
	private static final int LOCK_LINES = 1;

	private static final int PERMIT_LINES = 2;

	private final List<QuorumMember> nodes;

	private final KeyLayout keys;

	private final Waiting waiting;

	private final Waiting permitLines;

	private final Channels locks;

	private final Channels permits;

	private final ScheduledExecutorService scheduler;

	private final Executor callbacks;

	private final long callBoundNanos;

	private final NodeHintConnection[] channels;

	private final ConcurrentHashMap<String, Interest> interests = new ConcurrentHashMap<>();

	private volatile boolean closed;

	/**
	 * @param waiting the locks' lines (exclusive and read-write)
	 * @param permitLines the semaphores' lines
	 */
	public ReleaseHints(NodeFleet fleet, KeyLayout keys, Waiting waiting, Waiting permitLines,
			ScheduledExecutorService scheduler, Executor callbacks) {
		this.nodes = fleet.nodes();
		this.keys = keys;
		this.waiting = waiting;
		this.permitLines = permitLines;
		this.locks = new Channels(keys::lockKey, LOCK_LINES);
		this.permits = new Channels(keys::permitChannel, PERMIT_LINES);
		this.scheduler = scheduler;
		this.callbacks = callbacks;
		this.callBoundNanos = fleet.callBoundNanos();
		this.channels = new NodeHintConnection[this.nodes.size()];
		for (int i = 0; i < this.channels.length; i++) {
			this.channels[i] = new NodeHintConnection(this.nodes.get(i), scheduler, () -> this.closed, this::hint);
		}
	}

	/**
	 * Returns the hints of the locks' lines (exclusive and read-write), on the lock keys'
	 * channels.
	 */
	public Channels locks() {
		return this.locks;
	}

	/**
	 * Returns the hints of the semaphores' lines, on their channels.
	 */
	public Channels permits() {
		return this.permits;
	}

	/**
	 * Subscribes to the channel for the given lines, unless subscribed already. Called
	 * holding a line's monitor: sends and schedules, but never blocks or calls back
	 * synchronously.
	 */
	private void want(String channel, int lines) {
		if (this.closed) {
			return;
		}
		boolean[] subscribe = new boolean[1];
		this.interests.compute(channel, (name, existing) -> {
			Interest interest = (existing != null) ? existing : new Interest();
			interest.wanted |= lines;
			interest.cancelLinger();
			if (!interest.subscribed) {
				interest.subscribed = true;
				subscribe[0] = true;
			}
			return interest;
		});
		if (subscribe[0]) {
			subscribe(channel);
		}
	}

	/**
	 * Unsubscribes from the channel a second from now, unless it is wanted again
	 * meanwhile or still wanted by the other lines. Called holding a line's monitor.
	 */
	private void unwant(String channel, int lines) {
		this.interests.computeIfPresent(channel, (name, interest) -> {
			interest.wanted &= ~lines;
			if (interest.wanted != 0) {
				return interest;
			}
			interest.cancelLinger();
			try {
				interest.linger = this.scheduler.schedule(() -> expire(name), LINGER_NANOS, TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// closing: the connections close with the registry
			}
			return interest;
		});
	}

	private void expire(String channel) {
		this.interests.computeIfPresent(channel, (name, interest) -> {
			if (interest.wanted != 0) {
				return interest;
			}
			for (NodeHintConnection node : this.channels) {
				node.unsubscribe(name);
			}
			return null;
		});
	}

	private void subscribe(String channel) {
		CompletableFuture<?>[] subscribed = new CompletableFuture<?>[this.channels.length];
		for (int i = 0; i < subscribed.length; i++) {
			subscribed[i] = this.channels[i].subscribe(channel);
		}
		// the release may have been published before the subscriptions: try once more,
		// off the monitor of the line that wanted them
		CompletableFuture.allOf(subscribed).whenCompleteAsync((ignored, ex) -> hint(channel, null), this.callbacks);
	}

	/**
	 * Returns how many channels are subscribed to, lingering ones included.
	 */
	public int subscriptions() {
		return this.interests.size();
	}

	/**
	 * Closes the publish/subscribe connections and forgets every subscription, as when
	 * the registry stops: {@link #resume()} opens connections again when first needed.
	 */
	public void stop() {
		close();
		this.interests.forEach((key, interest) -> interest.cancelLinger());
		this.interests.clear();
		for (NodeHintConnection channel : this.channels) {
			channel.forget();
		}
	}

	/**
	 * Subscribes again, when wanted, after {@link #stop()}.
	 */
	public void resume() {
		this.closed = false;
	}

	/**
	 * Closes the publish/subscribe connections; waits a bounded time.
	 */
	public void close() {
		this.closed = true;
		CompletableFuture<?>[] closing = new CompletableFuture<?>[this.channels.length];
		for (int i = 0; i < closing.length; i++) {
			closing[i] = this.channels[i].close();
		}
		try {
			CompletableFuture.allOf(closing).get(this.callBoundNanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Redlock release hint connections did not close cleanly", ex);
		}
	}

	/**
	 * Passes a hint on to the channel's line, with the message published (the released
	 * lease's token, a permit's token and slot), or {@code null} for a try after
	 * subscribing: to the lock's line for the key whose lock the channel names, or to the
	 * semaphore's line for the key whose permits it names (a line that does not exist
	 * costs a map look-up).
	 */
	private void hint(String channel, @Nullable String message) {
		String key = this.keys.lockChannelKey(channel);
		if (key != null) {
			this.waiting.hint(key, message);
			return;
		}
		key = this.keys.permitChannelKey(channel);
		if (key != null) {
			this.permitLines.hint(key, message);
		}
	}

	/**
	 * The release hints of one kind of waiting line, on the channels that the layout
	 * names for its keys.
	 */
	final class Channels {

		private final UnaryOperator<String> channel;

		private final int lines;

		private Channels(UnaryOperator<String> channel, int lines) {
			this.channel = channel;
			this.lines = lines;
		}

		/**
		 * Subscribes to the key's release hints, unless subscribed already. Called
		 * holding a line's monitor: sends and schedules, but never blocks or calls back
		 * synchronously.
		 */
		void want(String key) {
			ReleaseHints.this.want(this.channel.apply(key), this.lines);
		}

		/**
		 * Unsubscribes from the key's release hints a second from now, unless they are
		 * wanted again meanwhile. Called holding a line's monitor.
		 */
		void unwant(String key) {
			ReleaseHints.this.unwant(this.channel.apply(key), this.lines);
		}

	}

	/**
	 * One channel's subscription. Guarded by the map's lock for the channel.
	 */
	private static final class Interest {

		/** Which lines want it ({@link #LOCK_LINES}, {@link #PERMIT_LINES}), or 0. */
		private int wanted;

		private boolean subscribed;

		private @Nullable ScheduledFuture<?> linger;

		void cancelLinger() {
			if (this.linger != null) {
				this.linger.cancel(false);
				this.linger = null;
			}
		}

	}

}
