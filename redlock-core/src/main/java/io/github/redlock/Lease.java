package io.github.redlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

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
	 * restarted empty and after the nodes' per-key state expired; and, only with the
	 * restart guard on, after nodes (a minority or a quorum) came back from an older
	 * snapshot or restarted empty within the second a key's counter began: without the
	 * guard such a node can hand out a lower token. It assumes node clocks within the
	 * maximum TTL of each other, and a key acquired fewer than a million times a second.
	 * A reentrant acquisition keeps the outer lease's token.
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
	 * Keeps the lock for {@code duration} from now and no longer: the lock is extended
	 * (or shortened) on the nodes so that it expires there by itself at that moment. A
	 * duration above the registry's maximum TTL is reached by the watchdog, which extends
	 * the lease a maximum TTL at a time and sets the last extension to end exactly then;
	 * in the meantime a process that dies leaves the lock for at most one maximum TTL.
	 * When the moment comes, {@link #isHeld()} turns {@code false} quietly: the end was
	 * asked for, so listeners are not told of a loss. The lease can still be released
	 * earlier, and a later call moves the end again. If the watchdog cannot keep a quorum
	 * before the end, the lease is lost as any other.
	 * <p>
	 * For a reentrant hold this applies to the lock that the thread's holds share. The
	 * default implementation, for leases without a watchdog, extends the lease once to
	 * {@code duration}.
	 * @param duration how long from now to keep the lock; at most the registry's maximum
	 * hold time from the acquisition
	 * @return whether a quorum of nodes applied the new end; if not, the lease stays as
	 * it was
	 * @throws IllegalArgumentException if the duration is not positive, or ends past the
	 * maximum hold time
	 */
	default boolean holdFor(Duration duration) {
		return isHeld() && extend(duration);
	}

	/**
	 * Releases the lease, but leaves the lock on the nodes until {@code delay} from now
	 * when that is positive: the lock expires there by itself at that moment (kept by the
	 * watchdog until then if the delay is above the maximum TTL), so that nobody else can
	 * acquire it before. This is the minimum hold of a scheduled job (ShedLock's
	 * {@code lockAtLeastFor}). The lease counts as released at once: {@link #isHeld()} is
	 * {@code false}, further calls to release it do nothing, and closing the registry
	 * leaves the lock to expire rather than deleting it. A zero or negative delay
	 * releases at once, as {@link #release()} does.
	 * <p>
	 * For a reentrant hold that is not the thread's outermost, this only counts the hold
	 * down, as {@link #release()} does: the outermost hold decides when the lock goes.
	 * The default implementation, for leases without a watchdog, extends the lease once
	 * to {@code delay}, and releases it at once if that fails.
	 * @param delay how long from now the lock must stay held
	 */
	default void releaseAfter(Duration delay) {
		boolean kept = false;
		try {
			kept = delay != null && delay.toNanos() > 0 && isHeld() && extend(delay);
		}
		catch (RuntimeException ex) {
			// not kept: released below
		}
		if (!kept) {
			release();
		}
	}

	/**
	 * Releases the lock on every node. Does nothing if already released or expired.
	 * Returns once a quorum of nodes is free of it: anyone may acquire it then. The other
	 * nodes' deletions are still on their way and land within the node timeout (closing
	 * the registry waits for them), so a node read right after this returns may still
	 * show the key for a moment. A release that cannot free a quorum (nodes that do not
	 * answer) returns once every node answered or timed out, and logs a warning: the lock
	 * then stays until its ttl runs out.
	 */
	void release();

	/**
	 * Releases the lock on every node without blocking the calling thread.
	 * @return a future that completes when a quorum of nodes is free of the lock, as
	 * {@link #release()} returns, or when the nodes have answered or timed out
	 */
	default CompletableFuture<@Nullable Void> releaseAsync() {
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
