package io.github.redlock.embedded;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One client's view of a {@link RedisFleet}: a {@link NodeProxy} in front of each node.
 * Give each client of a test a view of its own, then partition them: client A reaching
 * nodes 0-2 while client B reaches nodes 2-4 is <pre class="code">
 * a.partition(3, 4);
 * b.partition(0, 1);
 * </pre>
 *
 * @author redlock contributors
 * @see RedisFleet#proxy(String)
 */
public final class FleetProxy implements AutoCloseable {

	private final String name;

	private final List<NodeProxy> proxies;

	FleetProxy(RedisFleet fleet, String name) {
		this.name = name;
		List<NodeProxy> proxies = new ArrayList<>(fleet.size());
		try {
			for (RedisNode node : fleet.nodes()) {
				proxies.add(NodeProxy.start(node, name + "-" + node.name()));
			}
		}
		catch (RuntimeException ex) {
			proxies.forEach(NodeProxy::close);
			throw ex;
		}
		this.proxies = Collections.unmodifiableList(proxies);
	}

	/**
	 * Returns the URIs to give this client in place of the nodes', in the fleet's order.
	 * @return the URIs
	 */
	public List<String> uris() {
		return this.proxies.stream().map(NodeProxy::uri).toList();
	}

	/**
	 * Returns the proxy in front of one node.
	 * @param index the node's index in the fleet, from 0
	 * @return its proxy
	 */
	public NodeProxy node(int index) {
		return this.proxies.get(index);
	}

	/**
	 * Returns the proxies, in the fleet's order.
	 * @return the proxies
	 */
	public List<NodeProxy> nodes() {
		return this.proxies;
	}

	/**
	 * Cuts this client off from the given nodes, both ways, and heals its links to every
	 * other node.
	 * @param unreachable the indexes of the nodes this client no longer reaches
	 */
	public void partition(int... unreachable) {
		boolean[] cut = new boolean[this.proxies.size()];
		for (int index : unreachable) {
			cut[index] = true;
		}
		for (int i = 0; i < cut.length; i++) {
			if (cut[i]) {
				this.proxies.get(i).cut();
			}
			else {
				this.proxies.get(i).heal();
			}
		}
	}

	/**
	 * Ends every cut and delay between this client and the fleet.
	 */
	public void heal() {
		this.proxies.forEach(NodeProxy::heal);
	}

	/**
	 * Stops every proxy of this view.
	 */
	@Override
	public void close() {
		this.proxies.forEach(NodeProxy::close);
	}

	@Override
	public String toString() {
		return "FleetProxy[" + this.name + " " + uris() + "]";
	}

}
