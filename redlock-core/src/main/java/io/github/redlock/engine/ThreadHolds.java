package io.github.redlock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reentrancy of the blocking API: which thread holds which key, and how many times. A
 * thread that acquires a key it holds gets the same lease again, with no round trip; the
 * lease is released on the nodes when the thread's last hold is released.
 *
 * @author redlock contributors
 */
final class ThreadHolds {

	private final ConcurrentHashMap<HoldKey, Hold> holds = new ConcurrentHashMap<>();

	/**
	 * Counts one more hold of {@code key} by the current thread, if it holds the key
	 * already and the lease is still held.
	 * @return the hold, or {@code null} when the thread must acquire the key
	 */
	Hold reenter(String key) {
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key));
		if (hold != null && hold.lease.isHeld() && hold.count.getAndIncrement() > 0) {
			return hold;
		}
		return null;
	}

	/**
	 * Records the current thread's first hold of a lease it just acquired.
	 */
	Hold first(RedlockLease lease) {
		HoldKey key = new HoldKey(Thread.currentThread(), lease.key());
		Hold hold = new Hold(key, lease);
		this.holds.put(key, hold);
		return hold;
	}

	/**
	 * Returns the current thread's hold of {@code key}.
	 * @throws IllegalMonitorStateException if the thread does not hold it
	 */
	Hold current(String key) {
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key));
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + key + "' is not held by thread '" + Thread.currentThread().getName() + "'");
		}
		return hold;
	}

	/**
	 * Counts down one hold; releases the lease when it was the last.
	 * @return whether the lease was released
	 */
	boolean release(Hold hold) {
		if (!last(hold)) {
			return false;
		}
		hold.lease.release();
		return true;
	}

	/**
	 * Counts down one hold; releases the lease, without blocking, when it was the last.
	 */
	CompletableFuture<Void> releaseAsync(Hold hold) {
		return last(hold) ? hold.lease.releaseAsync() : CompletableFuture.completedFuture(null);
	}

	private boolean last(Hold hold) {
		if (hold.count.updateAndGet((count) -> Math.max(0, count - 1)) > 0) {
			return false;
		}
		this.holds.remove(hold.key, hold);
		return true;
	}

	private record HoldKey(Thread thread, String key) {
	}

	/**
	 * One thread's hold on a lease, counted for reentrancy.
	 */
	static final class Hold {

		private final HoldKey key;

		private final RedlockLease lease;

		private final AtomicInteger count = new AtomicInteger(1);

		private Hold(HoldKey key, RedlockLease lease) {
			this.key = key;
			this.lease = lease;
		}

		RedlockLease lease() {
			return this.lease;
		}

	}

}
