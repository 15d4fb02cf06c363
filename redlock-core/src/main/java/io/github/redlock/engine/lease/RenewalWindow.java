package io.github.redlock.engine.lease;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.engine.lease.RedlockLease.ExtendOutcome;
import org.jspecify.annotations.Nullable;

/**
 * The watchdog's renewals of a registry's leases on their way to the nodes: at most
 * {@link #MOST_UNDECIDED} at once, the others waiting their turn here.
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
 * <b>Invariants.</b> At most {@link #MOST_UNDECIDED} renewals are sent and undecided at
 * once; the others wait in the order they fell due, and one is sent as soon as the window
 * has room, so none waits while the window has room.
 *
 * @author redlock contributors
 */
final class RenewalWindow {

	/**
	 * Renewals sent and undecided at once. Enough to keep up with many leases while the
	 * round trip is slow: the renewals a second a registry needs, times the round trip,
	 * must fit; and enough to fill a write to each node (the registry's write coalescing
	 * holds at most 256 flushes). Few enough that the window's commands are written,
	 * answered and read well within a node timeout on a slow, shared machine.
	 */
	static final int MOST_UNDECIDED = 512;

	/** The renewals waiting for room, guarded by this object. */
	private final ArrayDeque<Renewal> waiting = new ArrayDeque<>();

	/** Renewals sent and undecided, guarded by this object. */
	private int undecided;

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
		Renewal renewal = new Renewal(lease, ttlNanos, new CompletableFuture<>());
		synchronized (this) {
			this.waiting.add(renewal);
		}
		drain();
		return renewal.outcome;
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
		if (this.undecided >= MOST_UNDECIDED || this.waiting.isEmpty()) {
			return null;
		}
		this.undecided++;
		return this.waiting.poll();
	}

	private void send(Renewal renewal) {
		CompletableFuture<ExtendOutcome> outcome;
		try {
			outcome = renewal.lease.extendAsync(renewal.ttlNanos);
		}
		catch (RuntimeException ex) {
			decided();
			renewal.outcome.completeExceptionally(ex);
			return;
		}
		outcome.whenComplete((decided, ex) -> {
			decided();
			if (ex != null) {
				renewal.outcome.completeExceptionally(ex);
			}
			else {
				renewal.outcome.complete(decided);
			}
		});
	}

	private void decided() {
		synchronized (this) {
			this.undecided--;
		}
		drain();
	}

	/**
	 * One renewal waiting or sent.
	 */
	private record Renewal(RedlockLease lease, long ttlNanos, CompletableFuture<ExtendOutcome> outcome) {
	}

}
