package io.github.redlock.engine.lease;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.Lease;
import io.github.redlock.LeaseListener;
import org.jspecify.annotations.Nullable;

/**
 * One thread's acquisition of a lock it may hold several times over: releasing it counts
 * down the thread's hold, and the lock is released on the nodes when the count reaches
 * zero.
 *
 * @author redlock contributors
 */
public final class ReentrantLease implements Lease {

	private final ThreadHolds holds;

	private final ThreadHolds.Hold hold;

	private final AtomicBoolean released = new AtomicBoolean();

	public ReentrantLease(ThreadHolds holds, ThreadHolds.Hold hold) {
		this.holds = holds;
		this.hold = hold;
	}

	public RedlockLease lease() {
		return this.hold.lease();
	}

	/**
	 * Runs the action while this lease is held, then releases it, as
	 * {@code executeLocked} does: a lease lost while the action ran fails the call with
	 * its loss cause, or adds the cause, suppressed, to what the action threw.
	 * @param <T> the action's result type
	 * @param action the work to run under the lock
	 * @return what the action returned
	 * @throws Exception what the action threw, or the loss cause of the lease
	 */
	public <T> T callHeld(Callable<T> action) throws Exception {
		RedlockLease held = lease();
		try {
			T result;
			try {
				result = action.call();
			}
			catch (Exception | Error ex) {
				if (!held.isHeld()) {
					ex.addSuppressed(held.lossCause());
				}
				throw ex;
			}
			if (!held.isHeld()) {
				throw held.lossCause();
			}
			return result;
		}
		finally {
			release();
		}
	}

	@Override
	public String key() {
		return lease().key();
	}

	@Override
	public long fencingToken() {
		return lease().fencingToken();
	}

	@Override
	public boolean isHeld() {
		return !this.released.get() && lease().isHeld();
	}

	@Override
	public Duration remainingValidity() {
		return this.released.get() ? Duration.ZERO : lease().remainingValidity();
	}

	@Override
	public boolean extend(Duration ttl) {
		return !this.released.get() && lease().extend(ttl);
	}

	@Override
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			this.holds.release(this.hold);
		}
	}

	/**
	 * Keeps the lock the thread's holds share for {@code duration} from now and no
	 * longer; see {@link Lease#holdFor(Duration)}.
	 */
	@Override
	public boolean holdFor(Duration duration) {
		return !this.released.get() && lease().holdFor(duration);
	}

	/**
	 * Counts this hold down; when it is the thread's outermost, releases the lease but
	 * leaves the lock on the nodes until {@code delay} from now. A nested hold's delay
	 * changes nothing: the outermost hold decides.
	 */
	@Override
	public void releaseAfter(Duration delay) {
		if (this.released.compareAndSet(false, true)) {
			this.holds.releaseAfter(this.hold, delay);
		}
	}

	@Override
	public CompletableFuture<@Nullable Void> releaseAsync() {
		if (this.released.compareAndSet(false, true)) {
			return this.holds.releaseAsync(this.hold);
		}
		return CompletableFuture.completedFuture(null);
	}

	@Override
	public void addListener(LeaseListener listener) {
		lease().addListener(listener);
	}

	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return lease().toString();
	}

}
