package io.github.redlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.redlock.embedded.RedisFleetExtension;

/**
 * The {@code redlock.*} properties that point an application context at a test fleet.
 */
public final class FleetProperties {

	private FleetProperties() {
	}

	/**
	 * Returns {@code redlock.nodes} for every node of the fleet, the restart guard off
	 * (the nodes were just started: the guard would keep them out for {@code max-ttl}),
	 * then the given properties.
	 * @param fleet the fleet
	 * @param more more properties, as {@code name=value}
	 * @return the properties
	 */
	public static String[] of(RedisFleetExtension fleet, String... more) {
		List<String> properties = new ArrayList<>();
		List<String> uris = fleet.uris();
		for (int i = 0; i < uris.size(); i++) {
			properties.add("redlock.nodes[" + i + "]=" + uris.get(i));
		}
		properties.add("redlock.restart-guard=false");
		properties.addAll(List.of(more));
		return properties.toArray(String[]::new);
	}

}
