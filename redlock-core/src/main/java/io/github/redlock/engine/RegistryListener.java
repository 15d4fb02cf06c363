package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.LockLostException;

/**
 * Hears what happens to the locks and the nodes of one {@link RedlockRegistry}, for
 * metrics and auditing. Methods are called on the registry's I/O and scheduler threads,
 * so they must be quick and must not block; an exception thrown from one is logged and
 * ignored. Reentrant acquisitions on a thread that already holds the key are not
 * reported: they make no round trip.
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

	/**
	 * A lease was lost while held, with the exception its holder gets: it expired, could
	 * not be extended on a quorum, or was revoked ({@link RedlockRegistry#revoke}). Calls
	 * {@link #lost(String, Duration)} unless overridden.
	 * @param key the lock's key
	 * @param held how long it was held until lost
	 * @param cause why, as its holder is told
	 */
	default void lost(String key, Duration held, LockLostException cause) {
		lost(key, held);
	}

	/**
	 * A release by its holder was not confirmed by a quorum of nodes: the others did not
	 * answer within the node timeout, so the lock may stay held there until its TTL runs
	 * out.
	 * @param key the lock's key
	 */
	default void releaseNotConfirmed(String key) {
	}

	/**
	 * A node's standing toward the quorum changed: it went down, was kept out (by the
	 * restart guard, for instance), or counts again. Told once per change, from the
	 * registry's first connection on; a node found not usable then is told at once.
	 * @param node the node, as a URI without credentials (a cluster member, its name)
	 * @param state where it stands now
	 * @param detail why, in words for an operator
	 */
	default void nodeChanged(String node, NodeState state, String detail) {
	}

}
