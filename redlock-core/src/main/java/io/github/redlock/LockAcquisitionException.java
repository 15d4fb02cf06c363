package io.github.redlock;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when a lock could not be acquired within its wait time: another owner held it,
 * or too few nodes answered to make a quorum.
 *
 * @author redlock contributors
 */
public class LockAcquisitionException extends RedlockException {

	private static final long serialVersionUID = 1L;

	private final String key;

	private final int agreed;

	private final int required;

	private final int nodes;

	private final transient List<NodeFailure> failures;

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
			List<NodeFailure> failures, String note) {
		super(message(key, waitTime, attempts, agreed, required, nodes, failures, note));
		this.key = key;
		this.agreed = agreed;
		this.required = required;
		this.nodes = nodes;
		this.failures = List.copyOf(failures);
	}

	/**
	 * Creates an exception with a plain message, for a caller that wraps this one with
	 * more context.
	 * @param message the message
	 * @param cause the exception being wrapped
	 */
	public LockAcquisitionException(String message, LockAcquisitionException cause) {
		super(message, cause);
		this.key = cause.key;
		this.agreed = cause.agreed;
		this.required = cause.required;
		this.nodes = cause.nodes;
		this.failures = cause.failures;
	}

	private static String message(String key, Duration waitTime, int attempts, int agreed, int required, int nodes,
			List<NodeFailure> failures, String note) {
		StringBuilder message = new StringBuilder("Could not acquire lock '").append(key).append("'");
		message.append(waitTime.isZero() ? " in one attempt"
				: " within " + format(waitTime) + " (" + attempts + ((attempts == 1) ? " attempt)" : " attempts)"));
		message.append(": ")
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
		boolean held = failures.stream().anyMatch((failure) -> failure.kind() == NodeFailure.Kind.HELD);
		boolean restarted = failures.stream().anyMatch((failure) -> failure.kind() == NodeFailure.Kind.RESTARTED);
		if (held) {
			message.append(". Another owner holds it: wait longer or retry later.");
		}
		else if (restarted) {
			message.append(". Restarted nodes count again once the maximum TTL has passed since their restart.");
		}
		else {
			message.append(". Check that a majority of nodes is up and reachable.");
		}
		return message.toString();
	}

	private static String format(Duration duration) {
		return (duration.toMillis() % 1000 == 0) ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
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
