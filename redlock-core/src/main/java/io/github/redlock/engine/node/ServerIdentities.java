package io.github.redlock.engine.node;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Which server each node of a fleet is, by the {@code run_id} it reports on every
 * connection: two names for one server ({@code 127.0.0.1} and {@code localhost}, a DNS
 * alias) would let it count twice toward a quorum. Of the nodes that report one
 * {@code run_id}, the first listed counts; the others are duplicates of it.
 *
 * @author redlock contributors
 */
public final class ServerIdentities {

	private final List<NodeExclusions> nodes = new CopyOnWriteArrayList<>();

	/**
	 * Adds a node, in configuration order.
	 */
	void register(NodeExclusions node) {
		this.nodes.add(node);
	}

	/**
	 * Works out again which nodes are duplicates: a node reported a {@code run_id}.
	 */
	synchronized void changed() {
		Map<String, NodeExclusions> first = new HashMap<>();
		for (NodeExclusions node : this.nodes) {
			String runId = node.runId();
			NodeExclusions owner = (runId != null) ? first.putIfAbsent(runId, node) : null;
			node.sameServerAs((owner != null) ? owner.node() : null);
		}
	}

}
