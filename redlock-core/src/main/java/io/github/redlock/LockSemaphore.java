package io.github.redlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A distributed semaphore of a fixed number of permits over a key, each permit a
 * {@link Lease} of its own: with a fencing token, extension, automatic extension, release
 * and a loss signal, and freed by itself when its TTL ends should its holder die. Never
 * more holders than permits hold at once on a quorum of nodes.
 *
 * <pre class="code">
 * LockSemaphore exports = registry.semaphore("exports", 3);
 * try (Lease permit = exports.acquire(Duration.ofSeconds(30), Duration.ofSeconds(5))) {
 *     export(batch, permit.fencingToken());
 * }
 * </pre>
 * <p>
 * Permits are not reentrant: each acquisition takes one more permit, also on a thread
 * that holds one. The permit count belongs to the callers, not the nodes: while
 * deployments with different counts for one key run side by side, each grants permits
 * only below its own count, and all of them together never hold more than the largest.
 *
 * @author redlock contributors
 * @see LockRegistry#semaphore(String, int)
 */
public interface LockSemaphore {

	/**
	 * Returns the semaphore's key.
	 * @return the key
	 */
	String key();

	/**
	 * Returns the number of permits.
	 * @return the permits
	 */
	int permits();

	/**
	 * Acquires a permit, retrying until {@code waitTime} has passed. The lease is not
	 * extended automatically.
	 * @param ttl how long the permit lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return the permit's lease, held
	 * @throws LockAcquisitionException if no permit could be acquired in time, or the
	 * thread was interrupted while waiting (its interrupted status is set again)
	 */
	Lease acquire(Duration ttl, Duration waitTime);

	/**
	 * Acquires a permit as {@link #acquire(Duration, Duration)} does and, if
	 * {@code autoExtend}, keeps it extended every third of its TTL until released
	 * (bounded by the registry's maximum hold time).
	 * @param ttl how long the permit lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return the permit's lease, held
	 * @throws LockAcquisitionException if no permit could be acquired in time
	 */
	default Lease acquire(Duration ttl, Duration waitTime, boolean autoExtend) {
		return acquire(ttl, waitTime);
	}

	/**
	 * Acquires a permit without blocking a thread, retrying until {@code waitTime} has
	 * passed. The lease is not extended automatically. Completion stages attached to the
	 * returned future without an executor run on the registry's threads and must not
	 * block.
	 * @param ttl how long the permit lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @return a future for the permit's lease; it fails with
	 * {@link LockAcquisitionException} if no permit could be acquired in time, and
	 * cancelling it abandons the attempt (a permit granted to it meanwhile is released at
	 * once)
	 * @throws UnsupportedOperationException if the semaphore has no asynchronous form
	 */
	default CompletableFuture<Lease> acquireAsync(Duration ttl, Duration waitTime) {
		throw new UnsupportedOperationException(getClass().getName() + " has no asynchronous acquisition");
	}

	/**
	 * Acquires a permit as {@link #acquireAsync(Duration, Duration)} does and, if
	 * {@code autoExtend}, keeps it extended every third of its TTL until released
	 * (bounded by the registry's maximum hold time).
	 * @param ttl how long the permit lives on the nodes unless extended or released
	 * @param waitTime how long to keep trying; zero for one attempt
	 * @param autoExtend whether to keep the lease extended until released
	 * @return a future for the permit's lease
	 * @throws UnsupportedOperationException if the semaphore has no asynchronous form
	 */
	default CompletableFuture<Lease> acquireAsync(Duration ttl, Duration waitTime, boolean autoExtend) {
		return acquireAsync(ttl, waitTime);
	}

	/**
	 * Acquires a permit if one is free now, without waiting: a permit free on a quorum of
	 * nodes is granted, whichever it is (an implementation may try several at once for
	 * that, never waiting between them).
	 * @param ttl how long the permit lives on the nodes unless extended or released
	 * @return the permit's lease, or empty if none is free on a quorum
	 * @throws LockAcquisitionException if the attempt failed for want of usable nodes
	 * ({@link LockAcquisitionException.Reason#NO_QUORUM}) or because the nodes answered
	 * too late ({@link LockAcquisitionException.Reason#VALIDITY_EXHAUSTED}), as
	 * {@link #acquire(Duration, Duration)} does: an outage is not taken for a semaphore
	 * whose permits are all taken
	 */
	Optional<Lease> tryAcquire(Duration ttl);

	/**
	 * Returns how many permits are free now, as far as the nodes tell: the permit count
	 * less the permits that a majority of the answering nodes hold, or 0 when fewer nodes
	 * than a quorum answered. An estimate for metrics and logs, out of date as soon as it
	 * returns; only an acquisition decides.
	 * @return the free permits, at least 0
	 */
	int availablePermits();

}
