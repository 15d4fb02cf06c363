package io.github.redlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A held distributed lock. Close it, typically with try-with-resources, to release it.
 * <p>
 * The lock is safe to rely on only while {@link #isHeld()} is {@code true}; pass
 * {@link #fencingToken()} to any store that can reject writes from an older holder, so
 * that a holder paused past its lease cannot corrupt data.
 *
 * @author redlock contributors
 */
public interface Lease extends AutoCloseable {

	/**
	 * Returns the key this lease holds.
	 * @return the key
	 */
	String key();

	/**
	 * Returns the fencing token: a number that strictly increases across successive
	 * holders of the same key, across registries and processes, after a minority of nodes
	 * restarted empty and after the nodes' per-key state expired. It assumes node clocks
	 * within the maximum TTL of each other, and a key acquired fewer than a million times
	 * a second. A reentrant acquisition keeps the outer lease's token.
	 * <p>
	 * Pass it with every write to the protected resource and have the resource reject a
	 * token lower than the highest it has seen: that stops a holder that was paused past
	 * its lease (a long GC, a frozen VM) from overwriting a newer holder's work.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Returns whether the lease is still held: not released, not lost, and within its
	 * validity.
	 * @return whether the lease is held
	 */
	boolean isHeld();

	/**
	 * Returns how much longer the lease is valid, or zero if it is not held.
	 * @return the remaining validity
	 */
	Duration remainingValidity();

	/**
	 * Extends the lease so that it lives {@code ttl} from now, on a majority of nodes and
	 * within the current validity. Bounded by the registry's maximum hold time.
	 * @param ttl the new time to live
	 * @return whether the lease was extended
	 */
	boolean extend(Duration ttl);

	/**
	 * Releases the lock on every node. Does nothing if already released or expired.
	 */
	void release();

	/**
	 * Releases the lock on every node without blocking the calling thread.
	 * @return a future that completes when the nodes have answered or timed out
	 */
	default CompletableFuture<Void> releaseAsync() {
		release();
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Adds a listener told when the lease is lost while it was meant to be held. Called
	 * at once if the lease is already lost.
	 * @param listener the listener
	 */
	void addListener(LeaseListener listener);

	/**
	 * Releases the lock, as {@link #release()}; never throws for an already expired or
	 * released lease.
	 */
	@Override
	void close();

}
