package io.github.redlock.observation;

import java.time.Duration;
import java.util.Locale;

import io.github.redlock.engine.LockObserver;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * Context of a {@link RedlockObservationDocumentation#LOCK_HOLD lock hold} observation:
 * from the acquisition of a new lease to its release or loss.
 *
 * @author redlock contributors
 */
public class LockHoldContext extends Observation.Context {

	private final String key;

	private final long fencingToken;

	private final Duration ttl;

	private final LockObserver.Kind kind;

	private @Nullable Outcome outcome;

	/**
	 * Creates a context.
	 * @param key the lock's key
	 * @param fencingToken the lease's fencing token
	 * @param ttl the TTL it was acquired with
	 */
	public LockHoldContext(String key, long fencingToken, Duration ttl) {
		this(key, fencingToken, ttl, LockObserver.Kind.EXCLUSIVE);
	}

	/**
	 * Creates a context for a lease of the given kind.
	 * @param key the lock's key
	 * @param fencingToken the lease's fencing token
	 * @param ttl the TTL it was acquired with
	 * @param kind the kind of lock held
	 */
	public LockHoldContext(String key, long fencingToken, Duration ttl, LockObserver.Kind kind) {
		this.key = key;
		this.fencingToken = fencingToken;
		this.ttl = ttl;
		this.kind = kind;
	}

	/**
	 * Returns the kind of lock held: exclusive, read, write or a permit.
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
	 * Returns the lease's fencing token.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Returns the TTL the lease was acquired with.
	 * @return the TTL
	 */
	public Duration getTtl() {
		return this.ttl;
	}

	/**
	 * Returns how the hold ended, or {@code null} while the lease is held.
	 * @return the outcome
	 */
	public @Nullable Outcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Sets how the hold ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(Outcome outcome) {
		this.outcome = outcome;
	}

	/**
	 * How a hold ended.
	 */
	public enum Outcome {

		/**
		 * The holder released the lease (or the registry did, as it closed).
		 */
		RELEASED,

		/**
		 * The lease was lost while held: it expired, or could not be extended on a
		 * quorum. The observation carries the {@link io.github.redlock.LockLostException}
		 * as its error.
		 */
		LOST;

		/**
		 * Returns the outcome as a key value, in lower case.
		 * @return the value
		 */
		public String value() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
