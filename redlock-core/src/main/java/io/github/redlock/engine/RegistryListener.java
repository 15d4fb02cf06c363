package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.LockAcquisitionException;

/**
 * Hears what happens to the locks of one {@link RedlockRegistry}, for metrics and
 * auditing. Methods are called on the registry's I/O and scheduler threads, so they must
 * be quick and must not block; an exception thrown from one is logged and ignored.
 * Reentrant acquisitions on a thread that already holds the key are not reported: they
 * make no round trip.
 *
 * @author redlock contributors
 * @see RedlockRegistry.Builder#listener(RegistryListener)
 */
public interface RegistryListener {

	/**
	 * A lock was acquired on a quorum.
	 * @param key the lock's key
	 * @param took how long acquiring took, attempts and waits between them included
	 */
	default void acquired(String key, Duration took) {
	}

	/**
	 * A lock could not be acquired within its wait time.
	 * @param key the lock's key
	 * @param took how long the attempts took
	 * @param cause the exception the caller gets
	 */
	default void notAcquired(String key, Duration took, LockAcquisitionException cause) {
	}

	/**
	 * A lease was released by its holder.
	 * @param key the lock's key
	 * @param held how long it was held
	 */
	default void released(String key, Duration held) {
	}

	/**
	 * A lease was lost while held: it expired, or could not be extended on a quorum.
	 * @param key the lock's key
	 * @param held how long it was held until lost
	 */
	default void lost(String key, Duration held) {
	}

}
