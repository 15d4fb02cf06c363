package io.github.redlock.engine.node;

import io.github.redlock.NodeFailure;
import org.jspecify.annotations.Nullable;

/**
 * One node's answer to one script call: an integer, or why there is none.
 *
 * @param value the script's integer result, when {@code failure} is {@code null}
 * @param failure why the node gave no result, or {@code null}
 * @param unsent whether the call was never sent, because the node is silent
 * ({@link NodeSilence}): then nothing is to be undone there
 * @author redlock contributors
 */
public record NodeReply(long value, @Nullable NodeFailure failure, boolean unsent) {

	/** The replies of releases, withdrawals, raises and extensions: shared. */
	private static final NodeReply ZERO = new NodeReply(0, null, false);

	private static final NodeReply ONE = new NodeReply(1, null, false);

	static NodeReply of(long value) {
		return (value == 1) ? ONE : (value == 0) ? ZERO : new NodeReply(value, null, false);
	}

	static NodeReply failed(NodeFailure failure) {
		return new NodeReply(0, failure, false);
	}

	/**
	 * Returns the reply to a call that a silent node was not sent.
	 */
	public static NodeReply unsent(NodeFailure failure) {
		return new NodeReply(0, failure, true);
	}

	public boolean answered() {
		return this.failure == null;
	}

}
