package io.github.redlock.engine.lease;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.redlock.engine.lease.RedlockLease.ExtendOutcome;
import org.jspecify.annotations.Nullable;

/**
 * The watchdog's renewals of a registry's leases on their way to the nodes: at most
 * {@link #limit()} at once, the others waiting their turn here.
 * <p>
 * Renewals of leases acquired together fall due together, on one firing of the lease
 * timer. Sent all at once, a burst of thousands puts as many commands on every node's
 * connection: each command's node timeout runs from when it is handed to the client, so
 * those at the tail of the burst time out while the connection is still writing the ones
 * ahead of them and reading their replies; the node then looks silent, counts toward no
 * quorum, and the failed renewals, retried together, fail again until the leases are
 * lost. Kept to a window, the renewals due together still go out together, as many as the
 * window holds in one write to each node, and each one decided lets the next one waiting
 * go; a renewal is sent, and its node timeout starts, only when the window has room for
 * it. A renewal waits here only while earlier ones are on the nodes: its lease's validity
 * is still checked when it is sent, and a lease whose validity runs out while its renewal
 * waits is declared lost by its expiry check, as it would be if the renewal had failed.
 * <p>
 * The window shrinks when renewals time out, as TCP's congestion window does: on a
 * machine short of CPU the round trip of a full window outlasts the node timeout, its
 * renewals time out together, and the nodes they time out on look silent to the
 * acquisitions that share their connections. A smaller window lets each renewal's timeout
 * start only when it can be answered in time. It halves when a renewal decided with a
 * node timed out was sent after the window last shrank (once per window's worth, since
 * the renewals sent together time out together), and grows by one for each window's worth
 * decided without one. While no node times out, which is every quiet run, it stays at its
 * most.
 * <p>
 * <b>Invariants.</b> At most {@link #limit()} renewals are sent and undecided at once,
 * and the limit stays between {@link #LEAST_UNDECIDED} and {@link #MOST_UNDECIDED}; the
 * others wait in the order they fell due, and one is sent as soon as the window has room,
 * so none waits while the window has room.
 *
 * @author redlock contributors
 */
final class RenewalWindow {

	/**
	 * The most renewals sent and undecided at once, and the window while no node times
	 * out. Enough to keep up with many leases while the round trip is slow: the renewals
	 * a second a registry needs, times the round trip, must fit; and enough to fill a
	 * write to each node (the registry's write coalescing holds at most 256 flushes). Few
	 * enough that the window's commands are written, answered and read well within a node
	 * timeout on a slow, shared machine.
	 */
	static final int MOST_UNDECIDED = 512;

	/**
	 * The fewest the window shrinks to: still a write of many renewals to each node, and
	 * a few thousand renewals a second at a round trip of some milliseconds.
	 */
	static final int LEAST_UNDECIDED = 32;

	/** The renewals waiting for room, guarded by this object. */
	private final ArrayDeque<Renewal> waiting = new ArrayDeque<>();

	/** Renewals sent and undecided, guarded by this object. */
	private int undecided;

	/** How many may be sent and undecided now, guarded by this object. */
	private int limit = MOST_UNDECIDED;

	/** Renewals sent so far, guarded by this object. */
	private long sent;

	/** {@link #sent} when the window last shrank, guarded by this object. */
	private long shrunkAt;

	/**
	 * Renewals decided without a node timing out since the window last grew or shrank,
	 * guarded by this object.
	 */
	private int calm;

	/**
	 * Passes sent through {@link #drain()} and not yet done: the thread that raises it
	 * from zero drains, others leave their pass to it, so that a renewal decided on the
	 * sending thread does not drain recursively.
	 */
	private final AtomicInteger drains = new AtomicInteger();

	/**
	 * Extends {@code lease} by {@code ttlNanos} once the window has room.
	 * @return the extension's outcome, as {@link RedlockLease#extendAsync} gives it
	 */
	CompletableFuture<ExtendOutcome> renew(RedlockLease lease, long ttlNanos) {
		return renew(() -> lease.extendAsync(ttlNanos));
	}

	/**
	 * Sends {@code extension} once the window has room.
	 * @return its outcome
	 */
	CompletableFuture<ExtendOutcome> renew(Supplier<CompletableFuture<ExtendOutcome>> extension) {
		Renewal renewal = new Renewal(extension);
		synchronized (this) {
			this.waiting.add(renewal);
		}
		drain();
		return renewal.outcome;
	}

	/**
	 * Returns how many renewals may be sent and undecided now.
	 */
	synchronized int limit() {
		return this.limit;
	}

	private void drain() {
		if (this.drains.getAndIncrement() != 0) {
			return;
		}
		do {
			Renewal next;
			while ((next = take()) != null) {
				send(next);
			}
		}
		while (this.drains.decrementAndGet() != 0);
	}

	private synchronized @Nullable Renewal take() {
		if (this.undecided >= this.limit || this.waiting.isEmpty()) {
			return null;
		}
		this.undecided++;
		Renewal renewal = this.waiting.poll();
		renewal.number = ++this.sent;
		return renewal;
	}

	private void send(Renewal renewal) {
		CompletableFuture<ExtendOutcome> outcome;
		try {
			outcome = renewal.extension.get();
		}
		catch (RuntimeException ex) {
			decided(renewal, false);
			renewal.outcome.completeExceptionally(ex);
			return;
		}
		outcome.whenComplete((decided, ex) -> {
			decided(renewal, decided != null && decided.timedOut());
			if (ex != null) {
				renewal.outcome.completeExceptionally(ex);
			}
			else {
				renewal.outcome.complete(decided);
			}
		});
	}

	private void decided(Renewal renewal, boolean timedOut) {
		synchronized (this) {
			this.undecided--;
			if (timedOut) {
				if (renewal.number > this.shrunkAt) {
					this.limit = Math.max(LEAST_UNDECIDED, this.limit / 2);
					this.shrunkAt = this.sent;
					this.calm = 0;
				}
			}
			else if (this.limit < MOST_UNDECIDED && ++this.calm >= this.limit) {
				this.limit++;
				this.calm = 0;
			}
		}
		drain();
	}

	/**
	 * One renewal waiting or sent: its number among those sent is set, under the window's
	 * lock, when it is sent.
	 */
	private static final class Renewal {

		private final Supplier<CompletableFuture<ExtendOutcome>> extension;

		private final CompletableFuture<ExtendOutcome> outcome = new CompletableFuture<>();

		private long number;

		Renewal(Supplier<CompletableFuture<ExtendOutcome>> extension) {
			this.extension = extension;
		}

	}

}
