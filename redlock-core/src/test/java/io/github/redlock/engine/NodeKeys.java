package io.github.redlock.engine;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;

/**
 * What the nodes of a test's fleet hold, read straight from them.
 */
final class NodeKeys {

	private NodeKeys() {
	}

	/**
	 * Returns the value of a lock key on every node that runs and is not paused, in the
	 * fleet's order: {@code null} where the node does not hold the key.
	 */
	static List<Object> lockValues(RedisFleetExtension fleet, String key) {
		List<Object> values = new ArrayList<>();
		for (RedisNode node : fleet.fleet().nodes()) {
			if (node.isRunning() && !node.isPaused()) {
				values.add(node.call("GET", "redlock:lock:{" + key + "}"));
			}
		}
		return values;
	}

}
