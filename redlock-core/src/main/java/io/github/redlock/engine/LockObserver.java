package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.Lease;
import io.github.redlock.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * Instrumentation of a {@link RedlockRegistry} for tracing: hears of each acquisition as
 * it starts, on the caller's thread, so that it can find the caller's current trace, and
 * of how it ended; then of each new lease's hold until it is released or lost. The Spring
 * Boot module implements it with Micrometer Observations; core knows nothing of them.
 * <p>
 * A registry built without an observer pays one null check per acquisition. The calls
 * come, for each acquisition:
 * <ol>
 * <li>{@link #acquisitionStarted} on the caller's thread;</li>
 * <li>for a blocking acquisition, {@link Acquiring#openScope()} on the same thread,
 * closed before the outcome is told;</li>
 * <li>one of {@link Acquiring#acquired} or {@link Acquiring#failed}: on the caller's
 * thread for a blocking acquisition, on a registry callback thread for an asynchronous
 * one (there, a caller's cancellation may race with the grant: the first to arrive
 * counts);</li>
 * <li>for a new lease (not for a reentrant one, which joins the hold in progress),
 * {@link Acquiring#hold}, and then one of {@link Holding#released()} or
 * {@link Holding#lost} on whichever thread releases it or declares it lost.</li>
 * </ol>
 * Methods must be quick and must not block: some run on the registry's I/O and scheduler
 * threads. An exception thrown once the lock is held is logged and ignored.
 *
 * @author redlock contributors
 * @see RedlockRegistry.Builder#observer(LockObserver)
 */
public interface LockObserver {

	/**
	 * An acquisition starts, on the caller's thread.
	 * @param key the lock's key
	 * @param ttl the TTL asked for
	 * @param waitTime how long the caller lets it try
	 * @param mode how the caller waits
	 * @param reentrant whether the current thread holds the key already and joins its
	 * lease (no round trip unless the lease must be extended to the TTL)
	 * @return what hears how it goes; never {@code null}
	 */
	Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant);

	/**
	 * An acquisition of the given kind starts, on the caller's thread. The registry calls
	 * this one; by default it calls
	 * {@link #acquisitionStarted(String, Duration, Duration, Mode, boolean)}, so an
	 * observer written before read-write locks and semaphores sees their acquisitions
	 * too, without their kind.
	 * @param key the lock's key
	 * @param ttl the TTL asked for
	 * @param waitTime how long the caller lets it try
	 * @param mode how the caller waits
	 * @param reentrant whether the current thread holds the key already (in that kind)
	 * and joins its lease
	 * @param kind the kind of lock asked for
	 * @return what hears how it goes; never {@code null}
	 */
	default Acquiring acquisitionStarted(String key, Duration ttl, Duration waitTime, Mode mode, boolean reentrant,
			Kind kind) {
		return acquisitionStarted(key, ttl, waitTime, mode, reentrant);
	}

	/**
	 * The kind of lock an acquisition asks for.
	 */
	enum Kind {

		/**
		 * The exclusive lock of a key ({@link RedlockRegistry#acquire} and the calls
		 * built on it).
		 */
		EXCLUSIVE,

		/**
		 * A read lock ({@link RedlockRegistry#acquireRead}): shared with other readers.
		 */
		READ,

		/**
		 * The write lock ({@link RedlockRegistry#acquireWrite}).
		 */
		WRITE,

		/**
		 * A permit of a semaphore ({@link RedlockRegistry#semaphore}).
		 */
		PERMIT

	}

	/**
	 * How a caller waits for an acquisition.
	 */
	enum Mode {

		/**
		 * {@link RedlockRegistry#acquire} and the calls built on it
		 * ({@code executeLocked}, {@code tryAcquire}, {@code obtain(key).lock()}): the
		 * caller's thread waits.
		 */
		BLOCKING,

		/**
		 * {@link RedlockRegistry#acquireAsync}, {@link RedlockRegistry#acquireReadAsync},
		 * {@link RedlockRegistry#acquireWriteAsync} and
		 * {@link io.github.redlock.LockSemaphore#acquireAsync}: the caller gets a future
		 * at once (reactive callers too).
		 */
		ASYNC

	}

	/**
	 * One acquisition in progress.
	 */
	interface Acquiring {

		/**
		 * Makes the acquisition current on the caller's thread while it waits; only for
		 * blocking acquisitions.
		 * @return closes the scope, on the same thread, before the outcome is told
		 */
		Scope openScope();

		/**
		 * The lock was acquired (or joined, for a reentrant acquisition); ends the
		 * acquisition.
		 * @param lease the lease the caller gets
		 */
		void acquired(Lease lease);

		/**
		 * The acquisition failed; ends it.
		 * @param failure a {@link io.github.redlock.LockAcquisitionException}, an
		 * {@link InterruptedException}, a
		 * {@link java.util.concurrent.CancellationException} when an asynchronous caller
		 * cancelled, or another exception (such as the registry being closed)
		 */
		void failed(Throwable failure);

		/**
		 * The new lease's hold starts, after {@link #acquired}.
		 * @param lease the new lease
		 * @return what hears how the hold ends, or {@code null} not to hear it
		 */
		@Nullable Holding hold(Lease lease);

	}

	/**
	 * One lease held. Exactly one of its methods is called.
	 */
	interface Holding {

		/**
		 * The lease was released by its holder, or as the registry closed.
		 */
		void released();

		/**
		 * The lease was lost while held: it expired, or could not be extended on a
		 * quorum.
		 * @param cause what its holder is told
		 */
		void lost(LockLostException cause);

	}

	/**
	 * A scope opened on the caller's thread.
	 */
	@FunctionalInterface
	interface Scope extends AutoCloseable {

		/**
		 * Closes the scope, on the thread that opened it.
		 */
		@Override
		void close();

	}

}
