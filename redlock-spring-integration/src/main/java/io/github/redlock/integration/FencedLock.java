package io.github.redlock.integration;

import org.springframework.integration.support.locks.DistributedLock;

/**
 * A Spring Integration {@link DistributedLock} held on a quorum of redlock nodes, with
 * the fencing token of its current lease.
 * <p>
 * Every time the lock is acquired anew through the quorum it gets a token greater than
 * any earlier holder's, in this process or another. Pass it with every write to the
 * resource the lock protects, and have the resource reject a token lower than the highest
 * it has seen: that stops a holder that stalled past its lease (a long GC pause, a frozen
 * VM) from overwriting the work of the holder that came after it.
 *
 * <pre class="code">
 * FencedLock lock = registry.obtain("reconcile");
 * lock.lock();
 * try {
 *     store.write(batch, lock.fencingToken());
 * }
 * finally {
 *     lock.unlock();
 * }
 * </pre>
 *
 * @author redlock contributors
 * @see RedlockLockRegistry#obtain(Object)
 */
public interface FencedLock extends DistributedLock {

	/**
	 * Returns the lock's key, as given to {@link RedlockLockRegistry#obtain(Object)}.
	 * @return the key
	 */
	String getKey();

	/**
	 * Returns the fencing token of the lease this lock holds now, whichever thread holds
	 * it (a leader may hand it to the workers it starts). Re-entering the lock or
	 * refreshing its lease keeps the token; a new acquisition after an unlock or a loss
	 * gets a greater one.
	 * @return the fencing token
	 * @throws IllegalStateException if the lock is not held, or its lease has expired or
	 * was lost
	 */
	long fencingToken();

	/**
	 * Returns whether the current thread holds the lock and its lease is still valid.
	 * @return whether the current thread holds a valid lease of the lock
	 */
	boolean isHeldByCurrentThread();

}
