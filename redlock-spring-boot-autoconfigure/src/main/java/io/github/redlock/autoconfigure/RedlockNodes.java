package io.github.redlock.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;

/**
 * Decides which nodes the auto-configured registry uses: those of a
 * {@link RedlockConnectionDetails} bean, else {@code redlock.nodes}, else the one server
 * of the application's Spring Data Redis connection details, with a warning that one node
 * is not fault tolerant.
 *
 * @author redlock contributors
 */
final class RedlockNodes {

	private static final Log logger = LogFactory.getLog(RedlockNodes.class);

	private RedlockNodes() {
	}

	/**
	 * Returns the URIs of the nodes: {@code redlock.nodes}, else the URI of the fallback.
	 * @param properties the properties
	 * @param fallback the Spring Data Redis server, or {@code null}
	 * @param whyNoFallback says why there is no fallback although
	 * {@code spring.data.redis.*} is set, or {@code null} when it is not
	 * @return the URIs
	 */
	static List<String> resolve(RedlockProperties properties, @Nullable DataRedisFallback fallback,
			Supplier<@Nullable String> whyNoFallback) {
		List<String> nodes = properties.getNodes();
		if (!nodes.isEmpty()) {
			warnIfEven("redlock.nodes", nodes);
			return nodes;
		}
		if (fallback == null) {
			String why = whyNoFallback.get();
			if (why != null) {
				throw new InvalidRedlockConfigurationException(
						"No redlock nodes are configured: redlock.nodes is empty, and " + why,
						"Add redlock.nodes with the URIs of 3 or 5 independent Redis masters, such as "
								+ "redlock.nodes[0]=redis://10.0.0.1:6379 (the Spring Data Redis server alone is one node"
								+ " and not fault tolerant; to lock on it anyway, add spring-boot-starter-data-redis and"
								+ " keep its auto-configuration).");
			}
			throw new InvalidRedlockConfigurationException(
					"No redlock nodes are configured: redlock.nodes is empty and there are no spring.data.redis connection settings",
					"Add redlock.nodes with the URIs of 3 or 5 independent Redis masters, such as "
							+ "redlock.nodes[0]=redis://10.0.0.1:6379, or add redlock-embedded to run local nodes in development.");
		}
		logger.warn("redlock.nodes is not set: locking on the single Spring Data Redis server " + fallback.uri()
				+ ". One node is not fault tolerant and forgets its locks"
				+ " when it restarts; list 3 or 5 independent masters in redlock.nodes.");
		return List.of(fallback.uri());
	}

	/**
	 * Returns the URIs of the nodes of a connection details bean.
	 * @param details the connection details
	 * @return the URIs
	 * @throws InvalidRedlockConfigurationException if it supplies none
	 */
	static List<String> resolve(RedlockConnectionDetails details) {
		List<String> nodes = details.getNodes();
		if (nodes == null || nodes.isEmpty()) {
			throw new InvalidRedlockConfigurationException(
					"The RedlockConnectionDetails bean (" + details + ") supplies no nodes",
					"Make it return the URIs of 3 or 5 independent Redis masters, or remove it to use redlock.nodes");
		}
		warnIfEven("The RedlockConnectionDetails (" + details + ")", nodes);
		return nodes;
	}

	/**
	 * Returns whether the restart guard is on: as {@code redlock.restart-guard} says,
	 * unless it is not set and every node is an
	 * {@link RedlockNodeConnectionDetails#isEphemeral() ephemeral} Docker Compose service
	 * or test container, which the guard would keep out of quorums for
	 * {@code redlock.max-ttl} after every start.
	 * @param properties the properties
	 * @param details the connection details
	 * @param environment the environment, to tell an unset property from its default
	 * @return whether the restart guard is on
	 */
	static boolean restartGuard(RedlockProperties properties, RedlockConnectionDetails details,
			Environment environment) {
		if (details instanceof NodesRedlockConnectionDetails nodes && nodes.isEphemeral()
				&& !environment.containsProperty("redlock.restart-guard")) {
			logger.info("redlock.restart-guard=false for " + details + ": they start empty with the services or"
					+ " containers, and the guard would keep every one of them out of quorums for redlock.max-ttl."
					+ " Set redlock.restart-guard=true to test it.");
			return false;
		}
		return properties.isRestartGuard();
	}

	private static void warnIfEven(String source, List<String> nodes) {
		if (nodes.size() % 2 == 0) {
			logger.warn(source + " lists " + nodes.size() + " nodes: a quorum of " + (nodes.size() / 2 + 1)
					+ " tolerates " + (nodes.size() / 2 - 1) + " failed node(s), no more than " + (nodes.size() - 1)
					+ " nodes would. Use an odd number of nodes.");
		}
	}

}
