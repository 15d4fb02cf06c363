package io.github.redlock.observation;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.engine.LockObserver;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * Context of a {@link RedlockObservationDocumentation#LOCK_ACQUISITION lock acquisition}
 * observation: what was asked for, and, once it ended, how.
 *
 * @author redlock contributors
 */
public class LockAcquisitionContext extends Observation.Context {

	private final String key;

	private final Duration ttl;

	private final Duration waitTime;

	private final LockObserver.Mode mode;

	private final boolean reentrant;

	private final LockObserver.Kind kind;

	private @Nullable Outcome outcome;

	private long fencingToken;

	/**
	 * Creates a context.
	 * @param key the lock's key
	 * @param ttl the TTL asked for
	 * @param waitTime how long the caller lets it try
	 * @param mode how the caller waits
	 * @param reentrant whether the current thread held the key already
	 */
	public LockAcquisitionContext(String key, Duration ttl, Duration waitTime, LockObserver.Mode mode,
			boolean reentrant) {
		this(key, ttl, waitTime, mode, reentrant, LockObserver.Kind.EXCLUSIVE);
	}

	/**
	 * Creates a context for an acquisition of the given kind.
	 * @param key the lock's key
	 * @param ttl the TTL asked for
	 * @param waitTime how long the caller lets it try
	 * @param mode how the caller waits
	 * @param reentrant whether the current thread held the key already
	 * @param kind the kind of lock asked for
	 */
	public LockAcquisitionContext(String key, Duration ttl, Duration waitTime, LockObserver.Mode mode,
			boolean reentrant, LockObserver.Kind kind) {
		this.key = key;
		this.ttl = ttl;
		this.waitTime = waitTime;
		this.mode = mode;
		this.reentrant = reentrant;
		this.kind = kind;
	}

	/**
	 * Returns the kind of lock asked for: exclusive, read, write or a permit.
	 * @return the kind
	 */
	public LockObserver.Kind getKind() {
		return this.kind;
	}

	/**
	 * Returns the lock's key, as the caller gave it (without the key prefix).
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns the TTL asked for.
	 * @return the TTL
	 */
	public Duration getTtl() {
		return this.ttl;
	}

	/**
	 * Returns how long the caller let the acquisition try.
	 * @return the wait time
	 */
	public Duration getWaitTime() {
		return this.waitTime;
	}

	/**
	 * Returns how the caller waits.
	 * @return the mode
	 */
	public LockObserver.Mode getMode() {
		return this.mode;
	}

	/**
	 * Returns whether the current thread held the key already and joined its lease.
	 * @return whether the acquisition was reentrant
	 */
	public boolean isReentrant() {
		return this.reentrant;
	}

	/**
	 * Returns how the acquisition ended, or {@code null} while it runs.
	 * @return the outcome
	 */
	public @Nullable Outcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Sets how the acquisition ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(Outcome outcome) {
		this.outcome = outcome;
	}

	/**
	 * Returns the fencing token of the lease acquired, or 0 if none was.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Sets the fencing token of the lease acquired.
	 * @param fencingToken the fencing token
	 */
	public void setFencingToken(long fencingToken) {
		this.fencingToken = fencingToken;
	}

	/**
	 * How an acquisition ended.
	 */
	public enum Outcome {

		/**
		 * The lock was acquired, or joined by a thread that held it.
		 */
		ACQUIRED,

		/**
		 * Another owner held the lock for the whole wait time (or at the one attempt of
		 * {@code tryAcquire}): contention, not a fault.
		 */
		TIMED_OUT,

		/**
		 * Fewer nodes than a quorum could count: down, unreachable or kept out by the
		 * restart guard. A fault: the observation carries the error.
		 */
		NO_QUORUM,

		/**
		 * A quorum agreed only after the TTL (less drift) had passed: slow nodes or long
		 * pauses. A fault: the observation carries the error.
		 */
		VALIDITY_EXHAUSTED,

		/**
		 * The waiting thread was interrupted.
		 */
		INTERRUPTED,

		/**
		 * An asynchronous caller cancelled (or completed) its future before the lock was
		 * granted.
		 */
		CANCELLED,

		/**
		 * Anything else, such as a closed registry or a lock the calling thread's own
		 * hold refused ({@code HELD_BY_THIS_THREAD}). The observation carries the error.
		 */
		ERROR;

		/**
		 * Returns how an acquisition that failed with the given exception ended.
		 * @param failure the exception
		 * @return the outcome
		 */
		public static Outcome of(Throwable failure) {
			if (failure instanceof LockAcquisitionException acquisition) {
				return switch (acquisition.getReason()) {
					case HELD -> TIMED_OUT;
					case NO_QUORUM -> NO_QUORUM;
					case VALIDITY_EXHAUSTED -> VALIDITY_EXHAUSTED;
					case INTERRUPTED -> INTERRUPTED;
					// a defect of the calling code, shown as an error
					case HELD_BY_THIS_THREAD -> ERROR;
				};
			}
			if (failure instanceof InterruptedException) {
				return INTERRUPTED;
			}
			if (failure instanceof CancellationException) {
				return CANCELLED;
			}
			return ERROR;
		}

		/**
		 * Returns whether this outcome is a fault to show as an error.
		 * @return whether it is
		 */
		public boolean isFault() {
			return this == NO_QUORUM || this == VALIDITY_EXHAUSTED || this == ERROR;
		}

		/**
		 * Returns the outcome as a key value: lower case, words separated by {@code _}.
		 * @return the value
		 */
		public String value() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
