package io.github.redlock.engine.lease;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.LockKeys;
import org.jspecify.annotations.Nullable;

/**
 * Reentrancy of the blocking API: which thread holds which key, and how many times. A
 * thread that acquires a key it holds joins the same lease (same token, no waiting); the
 * lease is released on the nodes when the thread's last hold is released. A nested hold
 * may ask for more (a longer TTL, auto-extension); what it asked for is undone when it is
 * released, innermost first.
 * <p>
 * <b>Invariants.</b> A hold's count is the number of handles the thread got for the lease
 * and has not released: one from {@link #first}; one more from {@link #reenter}, which
 * {@link #undoReenter} takes back whenever the nested acquire then fails (its observer
 * threw, or extending the lease to the nested TTL threw or was refused); one less per
 * release. At zero the hold is removed and the lease released (or left to end).
 *
 * @author redlock contributors
 */
public final class ThreadHolds {

	private final ConcurrentHashMap<HoldKey, Hold> holds = new ConcurrentHashMap<>();

	/**
	 * Counts one more hold of {@code key} by the current thread, if it holds the key
	 * already and the lease is still held.
	 * @return the hold, or {@code null} when the thread must acquire the key
	 */
	public @Nullable Hold reenter(String key) {
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key));
		if (hold != null && hold.lease.isHeld() && hold.count.getAndIncrement() > 0) {
			return hold;
		}
		return null;
	}

	/**
	 * Returns the current thread's hold of {@code key} if its lease is still held,
	 * without counting a hold.
	 * @return the hold, or {@code null}
	 */
	public @Nullable Hold peek(String key) {
		if (this.holds.isEmpty()) {
			return null;
		}
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key));
		return (hold != null && hold.lease.isHeld()) ? hold : null;
	}

	/**
	 * Records the current thread's first hold of a lease it just acquired.
	 */
	public Hold first(RedlockLease lease) {
		HoldKey key = new HoldKey(Thread.currentThread(), lease.key());
		Hold hold = new Hold(key, lease);
		this.holds.put(key, hold);
		return hold;
	}

	/**
	 * Returns the current thread's hold of {@code key}.
	 * @throws IllegalMonitorStateException if the thread does not hold it
	 */
	public Hold current(String key) {
		Hold hold = this.holds.get(new HoldKey(Thread.currentThread(), key));
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + LockKeys.printable(key) + "' is not held by thread '"
					+ Thread.currentThread().getName() + "'");
		}
		return hold;
	}

	/**
	 * Counts down one hold; releases the lease when it was the last.
	 * @return whether the lease was released
	 */
	public boolean release(Hold hold) {
		if (!last(hold)) {
			hold.leaveNested();
			return false;
		}
		hold.lease.release();
		return true;
	}

	/**
	 * Counts down one hold; when it was the last, releases the lease but leaves the lock
	 * on the nodes until {@code delay} from now. A nested hold's delay is ignored: the
	 * outermost hold decides when the lock goes.
	 */
	void releaseAfter(Hold hold, Duration delay) {
		if (!last(hold)) {
			hold.leaveNested();
			return;
		}
		hold.lease.releaseAfter(delay);
	}

	/**
	 * Counts down one hold; releases the lease, without blocking, when it was the last.
	 */
	CompletableFuture<Void> releaseAsync(Hold hold) {
		if (last(hold)) {
			return hold.lease.releaseAsync();
		}
		hold.leaveNested();
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Takes back a {@link #reenter} whose nested acquire failed.
	 */
	public void undoReenter(Hold hold) {
		hold.count.decrementAndGet();
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
	public static final class Hold {

		private final HoldKey key;

		private final RedlockLease lease;

		private final AtomicInteger count = new AtomicInteger(1);

		/**
		 * What to undo when each nested hold is released, innermost first; made by the
		 * first nested hold, since most holds have none and each held lease's heap
		 * counts.
		 */
		private @Nullable Deque<Runnable> nested;

		private Hold(HoldKey key, RedlockLease lease) {
			this.key = key;
			this.lease = lease;
		}

		public RedlockLease lease() {
			return this.lease;
		}

		/**
		 * Records a nested hold, with what its release must undo (such as the
		 * auto-extension it asked for).
		 */
		public void enterNested(Runnable onRelease) {
			synchronized (this) {
				if (this.nested == null) {
					this.nested = new ArrayDeque<>(2);
				}
				this.nested.push(onRelease);
			}
		}

		private void leaveNested() {
			Runnable onRelease;
			synchronized (this) {
				onRelease = (this.nested != null) ? this.nested.poll() : null;
			}
			if (onRelease != null) {
				onRelease.run();
			}
		}

	}

}
