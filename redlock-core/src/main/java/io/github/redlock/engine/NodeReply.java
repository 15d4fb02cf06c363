package io.github.redlock.engine;

import io.github.redlock.NodeFailure;

/**
 * One node's answer to one script call: an integer, or why there is none.
 *
 * @param value the script's integer result, when {@code failure} is {@code null}
 * @param failure why the node gave no result, or {@code null}
 * @author redlock contributors
 */
record NodeReply(long value, NodeFailure failure) {

	/** The replies of releases, withdrawals, raises and extensions: shared. */
	private static final NodeReply ZERO = new NodeReply(0, null);

	private static final NodeReply ONE = new NodeReply(1, null);

	static NodeReply of(long value) {
		return (value == 1) ? ONE : (value == 0) ? ZERO : new NodeReply(value, null);
	}

	static NodeReply failed(NodeFailure failure) {
		return new NodeReply(0, failure);
	}

	boolean answered() {
		return this.failure == null;
	}

}
