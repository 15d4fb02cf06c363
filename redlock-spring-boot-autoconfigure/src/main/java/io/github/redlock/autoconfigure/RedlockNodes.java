package io.github.redlock.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

/**
 * Decides which members the auto-configured registry uses: the nodes or clusters of a
 * {@link RedlockConnectionDetails} bean, else {@code redlock.nodes} or
 * {@code redlock.clusters}, else the one server of the application's Spring Data Redis
 * connection details, with a warning that one node is not fault tolerant.
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
			warnIfEven("redlock.nodes", nodes.size(), "nodes");
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
		warnIfEven("The RedlockConnectionDetails (" + details + ")", nodes.size(), "nodes");
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

	/**
	 * Returns the clusters of {@code redlock.clusters}, checking that
	 * {@code redlock.nodes} is not set beside them.
	 * @param properties the properties
	 * @return the seed URIs of each cluster, or an empty list
	 * @throws InvalidRedlockConfigurationException if both are set
	 */
	static List<List<String>> clusters(RedlockProperties properties) {
		List<List<String>> clusters = properties.getClusters();
		if (clusters.isEmpty()) {
			return List.of();
		}
		if (!properties.getNodes().isEmpty()) {
			throw new InvalidRedlockConfigurationException("Both redlock.nodes and redlock.clusters are set",
					"Set one of them: redlock.nodes lists independent single masters, redlock.clusters lists Redis or"
							+ " Valkey Clusters, one per member of the quorum; a quorum cannot mix the two");
		}
		return clusters;
	}

	/**
	 * Returns the clusters of a connection details bean, with a warning when there is an
	 * even number of them.
	 * @param details the connection details
	 * @return the seed URIs of each cluster, or an empty list for a quorum of nodes
	 * @throws InvalidRedlockConfigurationException if the bean supplies both nodes and
	 * clusters
	 */
	static List<List<String>> clusters(RedlockConnectionDetails details) {
		List<List<String>> clusters = details.getClusters();
		if (clusters == null || clusters.isEmpty()) {
			return List.of();
		}
		boolean fromProperties = details instanceof PropertiesRedlockConnectionDetails;
		if (!fromProperties) {
			List<String> nodes = details.getNodes();
			if (nodes != null && !nodes.isEmpty()) {
				throw new InvalidRedlockConfigurationException(
						"The RedlockConnectionDetails bean (" + details + ") supplies both nodes and clusters",
						"Make it return nodes or clusters, not both: a quorum cannot mix the two");
			}
		}
		warnIfEven(fromProperties ? "redlock.clusters" : "The RedlockConnectionDetails (" + details + ")",
				clusters.size(), "clusters");
		return clusters;
	}

	/**
	 * Refuses {@code redlock.clusters} given as one comma-separated string without an
	 * index ({@code redlock.clusters=redis://a:6379,redis://b:6379}, or
	 * {@code REDLOCK_CLUSTERS}): Spring Boot would bind it as one cluster per URI, which
	 * counts one cluster several times if the URIs were meant as the seeds of one.
	 * @param environment the environment
	 * @throws InvalidRedlockConfigurationException if it is so given
	 */
	static void refuseClustersAsOneString(Environment environment) {
		ConfigurationPropertyName name = ConfigurationPropertyName.of("redlock.clusters");
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			ConfigurationProperty property = source.getConfigurationProperty(name);
			if (property != null && property.getValue() instanceof CharSequence value
					&& value.toString().contains(",")) {
				int uris = value.toString().split(",", -1).length;
				throw new InvalidRedlockConfigurationException(
						"redlock.clusters is set to one comma-separated string of " + uris
								+ " URIs, with no index: it could be the seeds of one cluster or one seed of each of "
								+ uris + " clusters",
						"Give each cluster its own index, with its seeds comma-separated:"
								+ " redlock.clusters[0]=redis://10.0.1.1:6379,redis://10.0.1.2:6379 and"
								+ " redlock.clusters[1]=redis://10.0.2.1:6379 (REDLOCK_CLUSTERS_0 and REDLOCK_CLUSTERS_1"
								+ " as environment variables), or a YAML list per cluster");
			}
		}
	}

	private static void warnIfEven(String source, int members, String kind) {
		if (members % 2 == 0) {
			logger.warn(source + " lists " + members + " " + kind + ": a quorum of " + (members / 2 + 1) + " tolerates "
					+ (members / 2 - 1) + " failed " + kind.substring(0, kind.length() - 1) + "(s), no more than "
					+ (members - 1) + " " + kind + " would. Use an odd number of " + kind + ".");
		}
	}

}
