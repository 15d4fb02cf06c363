package io.github.redlock.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.Lease;
import io.github.redlock.LeaseListener;

/**
 * One hold of a lease by the thread that may hold it several times over: releasing it
 * counts the thread's hold down, and the lease is released when the count reaches zero.
 *
 * @author redlock contributors
 */
final class HeldLease implements Lease {

	private final InMemoryLockRegistry registry;

	final InMemoryLockRegistry.Hold hold;

	private final AtomicBoolean released = new AtomicBoolean();

	HeldLease(InMemoryLockRegistry registry, InMemoryLockRegistry.Hold hold) {
		this.registry = registry;
		this.hold = hold;
	}

	@Override
	public String key() {
		return this.hold.lease.key();
	}

	@Override
	public long fencingToken() {
		return this.hold.lease.fencingToken();
	}

	@Override
	public boolean isHeld() {
		return !this.released.get() && this.hold.lease.isHeld();
	}

	@Override
	public Duration remainingValidity() {
		return this.released.get() ? Duration.ZERO : this.hold.lease.remainingValidity();
	}

	@Override
	public boolean extend(Duration ttl) {
		return !this.released.get() && this.hold.lease.extend(ttl);
	}

	@Override
	public boolean holdFor(Duration duration) {
		return !this.released.get() && this.hold.lease.holdFor(duration);
	}

	/**
	 * Counts this hold down; when it is the thread's outermost, releases the lease but
	 * leaves the lock until {@code delay} from now. A nested hold's delay changes
	 * nothing: the outermost hold decides.
	 */
	@Override
	public void releaseAfter(Duration delay) {
		if (this.released.compareAndSet(false, true)) {
			this.registry.releaseHold(this.hold, (delay != null) ? delay : Duration.ZERO);
		}
	}

	@Override
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			this.registry.releaseHold(this.hold);
		}
	}

	@Override
	public void addListener(LeaseListener listener) {
		this.hold.lease.addListener(listener);
	}

	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return this.hold.lease.toString();
	}

}
