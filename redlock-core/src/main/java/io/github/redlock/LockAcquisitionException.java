package io.github.redlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock could not be acquired within its wait time. {@link #getReason()}
 * says why, for a program to switch on: another owner holds it ({@link Reason#HELD},
 * worth a retry later), too few nodes are usable ({@link Reason#NO_QUORUM}, which a retry
 * soon will not mend), the nodes answered too late ({@link Reason#VALIDITY_EXHAUSTED}),
 * the waiting thread was interrupted ({@link Reason#INTERRUPTED}), or the calling
 * thread's own hold of the key excludes the lock asked for
 * ({@link Reason#HELD_BY_THIS_THREAD}, a defect of the calling code).
 *
 * @author redlock contributors
 */
public class LockAcquisitionException extends RedlockException {

	private static final long serialVersionUID = 1L;

	/**
	 * Why a lock could not be acquired.
	 */
	public enum Reason {

		/**
		 * Another owner holds the lock: enough nodes answered to make a quorum, but too
		 * many of them hold another owner's value. Wait longer or retry later (HTTP 409
		 * with {@code Retry-After}).
		 */
		HELD("held by another owner"),

		/**
		 * Fewer nodes than a quorum could count: down, unreachable, kept out by the
		 * restart guard, or refusing the commands locking needs. Retrying soon does not
		 * help until the nodes are mended (HTTP 503).
		 */
		NO_QUORUM("not enough usable nodes"),

		/**
		 * A quorum agreed, but only after the whole TTL (less drift) had passed: slow
		 * nodes, a slow network or a long pause of this process. Look for them, or use a
		 * longer TTL (HTTP 503).
		 */
		VALIDITY_EXHAUSTED("validity exhausted"),

		/**
		 * The waiting thread was interrupted; no lock is held.
		 */
		INTERRUPTED("interrupted"),

		/**
		 * The calling thread's own hold of the key excludes the lock it asked for, so
		 * waiting would never end: a write lock asked under the thread's read lock (an
		 * upgrade), or a read or write lock and the exclusive lock of one key. Refused at
		 * once, without asking the nodes. A defect of the calling code, not a busy lock:
		 * {@code skipIfLocked} does not skip it and the web handler answers 500.
		 */
		HELD_BY_THIS_THREAD("held by this thread in a mode that excludes the one asked for");

		private final String description;

		Reason(String description) {
			this.description = description;
		}

		/**
		 * Returns a short description for messages.
		 * @return the description
		 */
		public String description() {
			return this.description;
		}

	}

	private final Reason reason;

	private final String key;

	private final int agreed;

	private final int required;

	private final int nodes;

	private final transient List<NodeFailure> failures;

	private final @Nullable Duration retryAfter;

	/**
	 * Creates an exception that describes the last attempt.
	 * @param key the lock's key
	 * @param waitTime how long the caller waited
	 * @param attempts how many attempts were made
	 * @param agreed how many nodes agreed in the last attempt
	 * @param required how many nodes make a quorum
	 * @param nodes how many nodes there are
	 * @param failures why each other node did not agree in the last attempt
	 * @param note extra explanation, or {@code null}
	 */
	public LockAcquisitionException(String key, Duration waitTime, int attempts, int agreed, int required, int nodes,
			List<NodeFailure> failures, @Nullable String note) {
		this(null, key, waitTime, attempts, agreed, required, nodes, failures, note);
	}

	/**
	 * Creates an exception that describes the last attempt, with its reason.
	 * @param reason why the lock could not be acquired, or {@code null} to judge it from
	 * the last attempt: held when the nodes that answered could have made a quorum, no
	 * quorum otherwise
	 * @param key the lock's key
	 * @param waitTime how long the caller waited
	 * @param attempts how many attempts were made
	 * @param agreed how many nodes agreed in the last attempt
	 * @param required how many nodes make a quorum
	 * @param nodes how many nodes there are
	 * @param failures why each other node did not agree in the last attempt
	 * @param note extra explanation, or {@code null}
	 */
	public LockAcquisitionException(@Nullable Reason reason, String key, Duration waitTime, int attempts, int agreed,
			int required, int nodes, List<NodeFailure> failures, @Nullable String note) {
		this(reason, key, waitTime, attempts, agreed, required, nodes, failures, note, null);
	}

	/**
	 * Creates an exception that describes the last attempt, with its reason and, for a
	 * quorum that only a wait keeps out (the restart guard), when locking is possible
	 * again.
	 * @param reason why the lock could not be acquired, or {@code null} to judge it from
	 * the last attempt: held when the nodes that answered could have made a quorum, no
	 * quorum otherwise
	 * @param key the lock's key
	 * @param waitTime how long the caller waited
	 * @param attempts how many attempts were made
	 * @param agreed how many nodes agreed in the last attempt
	 * @param required how many nodes make a quorum
	 * @param nodes how many nodes there are
	 * @param failures why each other node did not agree in the last attempt
	 * @param note extra explanation, or {@code null}
	 * @param retryAfter how long until enough nodes count again to make a quorum, when
	 * only the restart guard (or a clock settling) keeps them out; {@code null} when not
	 * known, and ignored unless the reason is {@link Reason#NO_QUORUM}
	 */
	public LockAcquisitionException(@Nullable Reason reason, String key, Duration waitTime, int attempts, int agreed,
			int required, int nodes, List<NodeFailure> failures, @Nullable String note, @Nullable Duration retryAfter) {
		super(message(reasonOf(reason, agreed, required, failures), key, waitTime, attempts, agreed, required, nodes,
				failures, note, retryAfterOf(reasonOf(reason, agreed, required, failures), retryAfter)));
		this.reason = reasonOf(reason, agreed, required, failures);
		this.key = key;
		this.agreed = agreed;
		this.required = required;
		this.nodes = nodes;
		this.failures = List.copyOf(failures);
		this.retryAfter = retryAfterOf(this.reason, retryAfter);
	}

	/**
	 * Creates an exception with a plain message, for a caller that wraps this one with
	 * more context.
	 * @param message the message
	 * @param cause the exception being wrapped
	 */
	public LockAcquisitionException(String message, LockAcquisitionException cause) {
		super(message, cause);
		this.reason = cause.reason;
		this.key = cause.key;
		this.agreed = cause.agreed;
		this.required = cause.required;
		this.nodes = cause.nodes;
		this.failures = cause.failures;
		this.retryAfter = cause.retryAfter;
	}

	/**
	 * Creates an exception for an acquisition that was interrupted while it waited.
	 * @param message what was waiting, for the message
	 * @param key the lock's key
	 * @param cause the interruption
	 */
	public LockAcquisitionException(String message, String key, InterruptedException cause) {
		super(message, cause);
		this.reason = Reason.INTERRUPTED;
		this.key = key;
		this.agreed = 0;
		this.required = 0;
		this.nodes = 0;
		this.failures = List.of();
		this.retryAfter = null;
	}

	/**
	 * Creates an exception with a message of its own, for a failure that no node's reply
	 * describes.
	 * @param reason why the lock could not be acquired
	 * @param key the lock key
	 * @param message what happened and what to do
	 */
	public LockAcquisitionException(Reason reason, String key, String message) {
		super(message);
		this.reason = reason;
		this.key = key;
		this.agreed = 0;
		this.required = 0;
		this.nodes = 0;
		this.failures = List.of();
		this.retryAfter = null;
	}

	private static @Nullable Duration retryAfterOf(Reason reason, @Nullable Duration retryAfter) {
		return (reason == Reason.NO_QUORUM && retryAfter != null && !retryAfter.isNegative() && !retryAfter.isZero())
				? retryAfter : null;
	}

	/**
	 * The reason of a last attempt in which fewer than a quorum agreed: held when the
	 * nodes that answered (agreeing or holding another owner's value) could have made a
	 * quorum, no quorum otherwise.
	 */
	private static Reason reasonOf(@Nullable Reason given, int agreed, int required, List<NodeFailure> failures) {
		if (given != null) {
			return given;
		}
		long held = failures.stream().filter((failure) -> failure.kind() == NodeFailure.Kind.HELD).count();
		if (agreed >= required) {
			return Reason.VALIDITY_EXHAUSTED;
		}
		return (agreed + held >= required) ? Reason.HELD : Reason.NO_QUORUM;
	}

	private static String message(Reason reason, String key, Duration waitTime, int attempts, int agreed, int required,
			int nodes, List<NodeFailure> failures, @Nullable String note, @Nullable Duration retryAfter) {
		StringBuilder message = new StringBuilder("Could not acquire lock '").append(LockKeys.printable(key))
			.append("'");
		message.append(waitTime.isZero() ? " in one attempt" : " within " + Durations.format(waitTime) + " (" + attempts
				+ ((attempts == 1) ? " attempt)" : " attempts)"));
		message.append(", ")
			.append(reason.description())
			.append(": ")
			.append(agreed)
			.append(" of ")
			.append(nodes)
			.append(" nodes agreed, ")
			.append(required)
			.append(" needed");
		if (note != null) {
			message.append("; ").append(note);
		}
		if (!failures.isEmpty()) {
			message.append(". ").append(failures.stream().map(NodeFailure::toString).collect(Collectors.joining("; ")));
		}
		boolean restarted = failures.stream().anyMatch((failure) -> failure.kind() == NodeFailure.Kind.RESTARTED);
		switch (reason) {
			case HELD -> message.append(". Another owner holds it: wait longer or retry later.");
			case VALIDITY_EXHAUSTED ->
				message.append(". The nodes answered too late to leave the lock any validity: look for slow nodes,"
						+ " a slow network or long pauses of this process, or use a longer ttl.");
			case INTERRUPTED -> message.append(". The waiting thread was interrupted; no lock is held.");
			default -> {
				message.append(". Fewer than ").append(required).append(" of the ").append(nodes);
				message.append(" nodes can count toward a quorum: check that a majority of nodes is up, reachable"
						+ " and usable (the redlock health shows each node's state)");
				if (retryAfter != null) {
					message.append("; the restart guard keeps new, restarted or flushed nodes out until every lock"
							+ " they may have forgotten has expired: locking is possible again in about "
							+ Durations.format(retryAfter)
							+ " (for throwaway nodes, such as a development machine's, the guard can be turned off:"
							+ " redlock.restart-guard=false).");
				}
				else {
					message.append(restarted ? "; restarted, new or flushed nodes count again once the maximum TTL"
							+ " has passed since then." : ".");
				}
			}
		}
		return message.toString();
	}

	/**
	 * Returns why the lock could not be acquired.
	 * @return the reason
	 */
	public Reason getReason() {
		return this.reason;
	}

	/**
	 * Returns how long until enough nodes count again to make a quorum, for a
	 * {@link Reason#NO_QUORUM} that only a wait stands behind: the restart guard keeping
	 * new, restarted or flushed nodes out (or a node's clock settling). Empty when the
	 * reason is another, or when nodes are down or ruled out, so that when locking comes
	 * back is not known.
	 * @return how long to wait before retrying, rounded up to the second, or empty
	 */
	public Optional<Duration> getRetryAfter() {
		return Optional.ofNullable(this.retryAfter);
	}

	/**
	 * Returns the key of the lock.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns how many nodes agreed in the last attempt.
	 * @return the number of nodes that agreed
	 */
	public int getAgreed() {
		return this.agreed;
	}

	/**
	 * Returns how many nodes make a quorum.
	 * @return the quorum
	 */
	public int getRequired() {
		return this.required;
	}

	/**
	 * Returns how many nodes there are.
	 * @return the number of nodes
	 */
	public int getNodes() {
		return this.nodes;
	}

	/**
	 * Returns why each node that did not agree in the last attempt failed.
	 * @return the failures
	 */
	public List<NodeFailure> getFailures() {
		return (this.failures != null) ? this.failures : List.of();
	}

}
