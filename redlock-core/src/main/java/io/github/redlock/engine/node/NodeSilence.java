package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.github.redlock.Durations;
import io.github.redlock.NodeFailure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Whether one node has gone silent, as when the network drops its packets without
 * resetting the connection (a black hole) or the server is frozen: its commands timed out
 * several times in a row, it has sent nothing for as many node timeouts, and a probe sent
 * then went unanswered within the {@link #probeTimeout probe timeout}. A silent node
 * counts toward no quorum and is sent no lock command (the caller hears
 * {@link #failure()} at once), except the deletions of values that were sent to it
 * before; it is probed every probe interval, and the first probe that answers ends the
 * silence.
 * <p>
 * The probe is a {@code TIME}, which the least-privilege ACL user of the docs may run,
 * and an error reply counts as an answer: the node must be let back in by whatever proves
 * it answers, not by what its ACL allows. A node left silent for good would take a vote
 * out of every quorum.
 * <p>
 * Such a node would otherwise get every command, and every command, timed out, would stay
 * in Lettuce's command stack (and past what the kernel buffers, in Netty's outbound
 * buffer) until the kernel gave up on the connection: about 15 minutes with Linux's
 * default {@code tcp_retries2}. What is pending toward a silent node is what was sent in
 * the second or so before it fell silent, and one probe.
 * <p>
 * Invariants: {@link #silent} is set only after a suspicion's probe failed
 * ({@link #timedOut}), and cleared only by a probe that answered, which moves the
 * {@link #epoch} on; a reply or timeout of a command sent in an earlier epoch changes
 * nothing. At most one probe is in flight ({@link #probing}), and while nothing is read
 * from the node, at most one waits in its connection: the probes add nothing to what is
 * pending however long the silence lasts. Silence says nothing of a restart: a server
 * that restarted closed the connection, which {@link NodeTrust} checks again on the next
 * one, as it always does.
 *
 * @author redlock contributors
 */
public final class NodeSilence {

	private static final Log logger = LogFactory.getLog(NodeSilence.class);

	private final String node;

	private final int threshold;

	private final Duration probeInterval;

	private final ClientResources resources;

	private final Supplier<@Nullable StatefulRedisConnection<String, String>> connection;

	private final Runnable changed;

	private final LongSupplier lastRead;

	private final Duration probeTimeout;

	/** How long the node must have answered nothing, besides the timeouts in a row. */
	private final long spanNanos;

	private final AtomicInteger timeoutsInARow = new AtomicInteger();

	/** When the node last answered a command sent in this epoch. */
	private volatile long lastAnsweredNanos = System.nanoTime();

	private final AtomicBoolean probing = new AtomicBoolean();

	/** Why the node gets no lock command, while silent; {@code null} otherwise. */
	private volatile @Nullable NodeFailure silent;

	private volatile long silentSince;

	/** Moves on when a silence ends, so that what was sent before counts no more. */
	private volatile int epoch;

	private volatile boolean closed;

	/** When the last probe went on the current connection; 0 for none. */
	private volatile long probeSentNanos;

	/**
	 * Creates the silence tracking of one node.
	 * @param node the node, for messages
	 * @param settings how many timeouts in a row make the node silent, and the probe
	 * interval
	 * @param nodeTimeout the node timeout
	 * @param resources where to schedule probes
	 * @param connection the node's current connection, or {@code null}
	 * @param lastRead when the node last sent anything ({@link System#nanoTime()}),
	 * replies to commands that timed out included, or {@link Long#MIN_VALUE} if that is
	 * not known
	 * @param changed told whenever the node falls silent or answers again
	 */
	NodeSilence(String node, SilentNodes settings, Duration nodeTimeout, ClientResources resources,
			Supplier<@Nullable StatefulRedisConnection<String, String>> connection, LongSupplier lastRead,
			Runnable changed) {
		this.lastRead = lastRead;
		this.node = node;
		this.threshold = settings.timeouts();
		this.probeInterval = settings.probeInterval();
		this.spanNanos = nodeTimeout.toNanos() * this.threshold;
		this.probeTimeout = probeTimeout(nodeTimeout, settings);
		this.resources = resources;
		this.connection = connection;
		this.changed = changed;
	}

	/**
	 * Returns how long a probe waits for its answer: the probe interval, and at least the
	 * node timeout. Longer than the node timeout, so that a node that is only slow (on a
	 * busy machine, answering in a few hundred milliseconds) is told from one that does
	 * not answer at all.
	 */
	static Duration probeTimeout(Duration nodeTimeout, SilentNodes settings) {
		return (settings.probeInterval().compareTo(nodeTimeout) > 0) ? settings.probeInterval() : nodeTimeout;
	}

	/**
	 * Returns the epoch to hand back with the outcome of a command sent now.
	 */
	int epoch() {
		return this.epoch;
	}

	/**
	 * Returns why the node gets no lock command now, or {@code null} if it is not silent.
	 */
	@Nullable NodeFailure failure() {
		return this.silent;
	}

	boolean isSilent() {
		return this.silent != null;
	}

	/**
	 * Notes that the node replied (a result or an error of its own) to a command sent in
	 * {@code sentIn}.
	 */
	void answered(int sentIn) {
		// read first: most replies find the count at 0, and a write per reply from every
		// thread would contend
		if (sentIn == this.epoch) {
			// one thread per connection completes its commands: one writer at a time
			this.lastAnsweredNanos = System.nanoTime();
			if (this.timeoutsInARow.get() != 0) {
				this.timeoutsInARow.set(0);
			}
		}
	}

	/**
	 * Notes that a command sent in {@code sentIn} timed out. When that makes
	 * {@link #threshold} in a row and the node has sent nothing for as many node timeouts
	 * (no reply, not even one to a command that had timed out already, which Lettuce
	 * drops but {@link WriteCoalescing} sees read), the node is suspected: a probe goes
	 * to it, and only if that is not answered within the probe timeout does the node fall
	 * silent. Until then it gets commands as before.
	 * <p>
	 * Both conditions keep a healthy node in on a busy machine. A stall of this process
	 * times out every command in flight at once, hundreds in a row at full load, and no
	 * read happens during it; a burst of thousands of commands (every lease's extension
	 * at once) keeps a server busy, answering nothing, for longer than a node timeout.
	 * Either way the node answers the probe soon after.
	 */
	void timedOut(int sentIn) {
		if (sentIn != this.epoch || this.silent != null) {
			return;
		}
		if (this.timeoutsInARow.incrementAndGet() >= this.threshold) {
			long now = System.nanoTime();
			long read = this.lastRead.getAsLong();
			if (now - this.lastAnsweredNanos >= this.spanNanos
					&& (read == Long.MIN_VALUE || now - read >= this.spanNanos)) {
				suspect();
			}
		}
	}

	private void suspect() {
		if (this.closed || !this.probing.compareAndSet(false, true)) {
			return;
		}
		StatefulRedisConnection<String, String> current = this.connection.get();
		if (current == null || !current.isOpen()) {
			// down, not silent: Lettuce is reconnecting
			this.probing.set(false);
			return;
		}
		try {
			// within the probe timeout (CommandTimeouts)
			this.probeSentNanos = System.nanoTime();
			current.async().time().whenComplete((time, ex) -> suspicionChecked(answered(ex)));
		}
		catch (RuntimeException ex) {
			this.probing.set(false);
		}
	}

	/**
	 * Says whether a probe was answered: with its reply, or with an error reply, which a
	 * frozen server or a black hole never sends either. An ACL that denies the probe's
	 * command must not keep a node that answers out of every quorum.
	 */
	private static boolean answered(@Nullable Throwable ex) {
		return ex == null || ex instanceof RedisCommandExecutionException
				|| ex.getCause() instanceof RedisCommandExecutionException;
	}

	private void suspicionChecked(boolean answered) {
		if (answered) {
			this.lastAnsweredNanos = System.nanoTime();
			this.timeoutsInARow.set(0);
			this.probing.set(false);
			return;
		}
		fallSilent();
		// still probing: the next probe goes after the interval
		probed(false);
	}

	private void fallSilent() {
		NodeFailure failure = new NodeFailure(this.node, NodeFailure.Kind.TIMEOUT, "silent: " + this.threshold
				+ " timeouts in a row, nothing sent for " + Durations.format(Duration.ofNanos(this.spanNanos))
				+ " and no answer to a probe (TIME) within " + Durations.format(this.probeTimeout)
				+ "; sent no lock command until it answers one, tried every " + Durations.format(this.probeInterval));
		synchronized (this) {
			if (this.silent != null || this.closed) {
				return;
			}
			this.silentSince = System.nanoTime();
			this.silent = failure;
		}
		logger.warn("Redlock node " + this.node + " timed out " + this.threshold + " times in a row, sent nothing for "
				+ Durations.format(Duration.ofNanos(this.spanNanos)) + " and did not answer a probe within "
				+ Durations.format(this.probeTimeout)
				+ " (packets dropped, or the server frozen): it counts toward no quorum and is sent no lock command"
				+ " until it answers a probe, tried every " + Durations.format(this.probeInterval));
		this.changed.run();
	}

	/**
	 * Probes at once if the node is silent: its connection was made again.
	 */
	void reconnected() {
		if (this.silent != null) {
			// a new connection: no probe waits in it
			this.probeSentNanos = 0;
			probe();
		}
	}

	private void probe() {
		if (this.closed || this.silent == null || !this.probing.compareAndSet(false, true)) {
			return;
		}
		StatefulRedisConnection<String, String> current = this.connection.get();
		if (current == null || !current.isOpen()) {
			// Lettuce is reconnecting: probe again later, or when it has
			probed(false);
			return;
		}
		long read = this.lastRead.getAsLong();
		if (read != Long.MIN_VALUE && this.probeSentNanos != 0 && read - this.probeSentNanos < 0) {
			// nothing read since the last probe went: it still waits in the connection
			// (Lettuce keeps a timed-out command until its reply), and another would
			// only queue behind it. Once the node sends again, the next tick probes
			probed(false);
			return;
		}
		try {
			// within the probe timeout (CommandTimeouts)
			this.probeSentNanos = System.nanoTime();
			current.async().time().whenComplete((time, ex) -> probed(answered(ex)));
		}
		catch (RuntimeException ex) {
			probed(false);
		}
	}

	private void probed(boolean answered) {
		if (answered) {
			long silentFor;
			synchronized (this) {
				if (this.silent == null) {
					this.probing.set(false);
					return;
				}
				silentFor = System.nanoTime() - this.silentSince;
				this.epoch++;
				this.timeoutsInARow.set(0);
				this.silent = null;
			}
			this.probing.set(false);
			logger.info("Redlock node " + this.node + " answers again after "
					+ Durations.format(Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(silentFor)))
					+ " of silence: it is sent lock commands again");
			this.changed.run();
			return;
		}
		this.probing.set(false);
		if (this.closed) {
			return;
		}
		try {
			this.resources.eventExecutorGroup()
				.schedule(this::probe, this.probeInterval.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			// the resources are shutting down: so is the registry
		}
	}

	/**
	 * Stops probing.
	 */
	void close() {
		this.closed = true;
	}

	/**
	 * Probes again after {@link #close()}, when the registry starts again: a node silent
	 * then stays silent until it answers a probe on its new connection.
	 */
	void reopen() {
		this.closed = false;
	}

}
