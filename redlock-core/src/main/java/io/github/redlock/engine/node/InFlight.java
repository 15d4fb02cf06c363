package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The scripts sent to one node and not yet answered, so that closing the connection can
 * let them land first: a release that a quorum has answered may still be on its way to
 * this node.
 *
 * @author redlock contributors
 */
final class InFlight {

	private final AtomicInteger pending = new AtomicInteger();

	private volatile @Nullable CompletableFuture<Void> drained;

	/** A script is handed to Lettuce. */
	void sent() {
		this.pending.incrementAndGet();
	}

	/** A script sent was answered, failed or could not be handed over. */
	void settled() {
		if (this.pending.decrementAndGet() == 0) {
			CompletableFuture<Void> closing = this.drained;
			if (closing != null) {
				closing.complete(null);
			}
		}
	}

	/**
	 * Returns a future that completes once nothing is in flight, or after the node
	 * timeout (and a little), which fails every command still unanswered.
	 */
	CompletableFuture<Void> drain(Duration nodeTimeout) {
		CompletableFuture<Void> drained = new CompletableFuture<>();
		this.drained = drained;
		if (this.pending.get() == 0) {
			drained.complete(null);
		}
		return drained.completeOnTimeout(null, nodeTimeout.toMillis() + 100, TimeUnit.MILLISECONDS);
	}

	/** Forgets a drain, for a client that connects again. */
	void reopen() {
		this.drained = null;
	}

}
