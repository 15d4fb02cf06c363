package io.github.redlock.engine.quorum;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import io.github.redlock.LockKeys;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.node.NodeReply;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.node.TurnProtocol;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One release or withdrawal on every node ({@link FleetDeletions}): sends the script to a
 * node once that node answered the acquisition (unless it answered "held"), and counts
 * the nodes done, one object for all of them rather than futures per node. {@link #freed}
 * completes when a quorum is known free of the value, or when every node is done.
 *
 * @author redlock contributors
 */
final class Deletion implements IntConsumer, NodeClient.DeletionDeadline, TimerTask {

	// the fleet's log category, which operators know
	private static final Log logger = LogFactory.getLog(NodeFleet.class);

	private static final byte SENT = 1;

	private static final byte DONE = 2;

	private final FleetDeletions fleet;

	private final Script script;

	/** The lock's key, and for a withdrawal its fencing counter's. */
	private final String[] keys;

	private final String[] args;

	private final QuorumCall acquisition;

	/**
	 * The counter's retention for a withdrawal that may undo an increment, else null.
	 */
	private final @Nullable String retentionMillis;

	private final NodeFleet.@Nullable AfterQuorum afterQuorum;

	/**
	 * Whether a node's release named another process's line and queued this one behind it
	 * (a reply 2 to {@link Script#RELEASE}).
	 */
	private volatile boolean queuedBehind;

	/** Nodes done: answered, failed, timed out or never sent the deletion. */
	private final AtomicInteger answered = new AtomicInteger();

	/** Nodes known free of the value: answered, or never had it. */
	private final AtomicInteger free = new AtomicInteger();

	private final CompletableFuture<Boolean> freed = new CompletableFuture<>();

	/** The lock's key to warn with when no quorum could be freed, or null. */
	private final @Nullable String warnKey;

	/**
	 * When each node was sent the deletion ({@link System#nanoTime()}), read only for a
	 * node {@link #SENT}. Guarded by this.
	 */
	private final long[] sentAt;

	/**
	 * Each node's state: not sent yet (0), {@link #SENT} or {@link #DONE}, so that a
	 * reply after the node's timeout (Lettuce still writes a late deletion, and hears its
	 * reply) counts once. Guarded by this.
	 */
	private final byte[] state;

	private int doneCount;

	/**
	 * One timer for every node, at the earliest deadline of a node sent the deletion and
	 * not done, or null. Guarded by this.
	 */
	private @Nullable Timeout timer;

	Deletion(FleetDeletions fleet, Script script, String[] keys, String[] args, QuorumCall acquisition,
			NodeFleet.@Nullable AfterQuorum afterQuorum, @Nullable String retentionMillis, @Nullable String warnKey) {
		this.fleet = fleet;
		this.sentAt = new long[fleet.nodes().size()];
		this.state = new byte[fleet.nodes().size()];
		this.warnKey = warnKey;
		this.script = script;
		this.keys = keys;
		this.args = args;
		this.acquisition = acquisition;
		this.afterQuorum = afterQuorum;
		this.retentionMillis = retentionMillis;
	}

	/**
	 * Has each node sent the deletion once it answered the acquisition.
	 * @return a future that completes with {@code true} once a quorum is known free of
	 * the value, or {@code false} once every node is done without that
	 */
	CompletableFuture<Boolean> start() {
		for (int i = 0; i < this.sentAt.length; i++) {
			this.acquisition.afterReply(i, this);
		}
		return this.freed;
	}

	/** The node at {@code index} answered the acquisition. */
	@Override
	public void accept(int index) {
		// a silent node that was not sent the value gets no deletion either: what is
		// sent to it stays bounded by what was sent before it fell silent
		if (this.acquisition.answeredHeld(index) || this.acquisition.unsent(index)) {
			if (done(index)) {
				answered(true);
			}
		}
		else {
			long undo = (this.retentionMillis != null) ? this.acquisition.tokenAboveHolders(index) : 0;
			String[] arguments = (undo > 0) ? new String[] { this.args[0], String.valueOf(undo),
					String.valueOf(undo - 1), this.retentionMillis } : this.args;
			this.fleet.nodes().get(index).eval(this.script, this.keys, arguments, index, this);
		}
	}

	@Override
	public synchronized void sending(int index) {
		this.sentAt[index] = System.nanoTime();
		this.state[index] = SENT;
		if (this.timer == null) {
			this.timer = this.fleet.resources()
				.timer()
				.newTimeout(this, this.fleet.nodeTimeoutNanos(), TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * The node at {@code index} answered the deletion, or failed to; a reply after the
	 * node timed out is dropped.
	 */
	@Override
	public void reply(int index, NodeReply reply) {
		if (done(index)) {
			if (reply.value() == TurnProtocol.RELEASED_NAMED && reply.answered()) {
				// written before the count that may reach the quorum: seen by its
				// thread
				this.queuedBehind = true;
			}
			answered(reply.answered());
		}
	}

	/** Marks a node done; returns false if it already was. */
	private synchronized boolean done(int index) {
		if (this.state[index] == DONE) {
			return false;
		}
		this.state[index] = DONE;
		if (++this.doneCount == this.state.length && this.timer != null) {
			this.timer.cancel();
			this.timer = null;
		}
		return true;
	}

	@Override
	public void run(Timeout fired) {
		// off the timer's thread, as Lettuce completes its own timeouts
		this.fleet.resources().eventExecutorGroup().execute(this::timeOut);
	}

	/**
	 * Counts each node sent the deletion a node timeout ago and not done as timed out
	 * (Lettuce still writes and awaits the command, for longer than the node timeout),
	 * and sets the timer for the next such node's deadline.
	 */
	private void timeOut() {
		int late = 0;
		synchronized (this) {
			long now = System.nanoTime();
			long next = Long.MAX_VALUE;
			this.timer = null;
			for (int i = 0; i < this.state.length; i++) {
				if (this.state[i] == SENT) {
					long left = this.sentAt[i] + this.fleet.nodeTimeoutNanos() - now;
					if (left <= 0) {
						this.state[i] = DONE;
						this.doneCount++;
						late++;
					}
					else {
						next = Math.min(next, left);
					}
				}
			}
			if (next != Long.MAX_VALUE) {
				this.timer = this.fleet.resources().timer().newTimeout(this, next, TimeUnit.NANOSECONDS);
			}
		}
		for (int i = 0; i < late; i++) {
			answered(false);
		}
	}

	private void answered(boolean free) {
		if (free && this.fleet.quorum().reachedAt(this.free.incrementAndGet())) {
			this.freed.complete(true);
		}
		int count = this.answered.incrementAndGet();
		if (this.fleet.quorum().reachedAt(count) && this.afterQuorum != null) {
			this.afterQuorum.done(this.queuedBehind);
		}
		if (count == this.fleet.nodes().size()) {
			// every node is done, so the count of free nodes is final: warned before
			// the
			// future completes, so that a caller who returns has been warned
			if (!this.fleet.quorum().reachedBy(this.free.get())) {
				if (this.warnKey != null) {
					logger.warn("Lock '" + LockKeys.printable(this.warnKey) + "' was released on fewer than "
							+ this.fleet.quorum().majority() + " of " + this.fleet.nodes().size()
							+ " nodes: the others did not answer within the node timeout. It may stay held there"
							+ " until its ttl runs out, and nobody can acquire it before then; check the nodes'"
							+ " health");
				}
				this.freed.complete(false);
			}
			this.fleet.deletionDone();
		}
	}

}
