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

	static NodeReply of(long value) {
		return new NodeReply(value, null);
	}

	static NodeReply failed(NodeFailure failure) {
		return new NodeReply(0, failure);
	}

	boolean answered() {
		return this.failure == null;
	}

}
