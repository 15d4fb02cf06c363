package io.github.redlock.aop;

/**
 * What happens when a {@code @DistributedLock} method returns and its lock was lost while
 * it ran.
 *
 * @author redlock contributors
 */
public enum LostLockPolicy {

	/**
	 * Throw {@code LockLostException} to the caller (inside a transaction, before the
	 * commit, so that it rolls back).
	 */
	THROW,

	/**
	 * Log a warning and return the method's result.
	 */
	LOG

}
