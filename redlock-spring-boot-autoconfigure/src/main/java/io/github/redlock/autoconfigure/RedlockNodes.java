package io.github.redlock.autoconfigure;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.env.Environment;

/**
 * Decides which nodes the auto-configured registry uses: {@code redlock.nodes}, else the
 * one server of the application's Spring Data Redis connection settings, with a warning
 * that one node is not fault tolerant.
 *
 * @author redlock contributors
 */
final class RedlockNodes {

	private static final Log logger = LogFactory.getLog(RedlockNodes.class);

	private RedlockNodes() {
	}

	static List<String> resolve(RedlockProperties properties, Environment environment) {
		List<String> nodes = properties.getNodes();
		if (!nodes.isEmpty()) {
			if (nodes.size() % 2 == 0) {
				logger.warn("redlock.nodes lists " + nodes.size() + " nodes: a quorum of " + (nodes.size() / 2 + 1)
						+ " tolerates " + (nodes.size() / 2 - 1) + " failed node(s), no more than " + (nodes.size() - 1)
						+ " nodes would. Use an odd number of nodes.");
			}
			return nodes;
		}
		String dataRedis = fromDataRedis(environment);
		if (dataRedis == null) {
			throw new InvalidRedlockConfigurationException(
					"No redlock nodes are configured: redlock.nodes is empty and there are no spring.data.redis connection settings",
					"Add redlock.nodes with the URIs of 3 or 5 independent Redis masters, such as "
							+ "redlock.nodes[0]=redis://10.0.0.1:6379, or add redlock-embedded to run local nodes in development.");
		}
		logger.warn("redlock.nodes is not set: locking on the single Spring Data Redis server "
				+ dataRedis.replaceAll("(://)[^@/]*@", "$1") + ". One node is not fault tolerant and forgets its locks"
				+ " when it restarts; list 3 or 5 independent masters in redlock.nodes.");
		return List.of(dataRedis);
	}

	private static String fromDataRedis(Environment environment) {
		String url = environment.getProperty("spring.data.redis.url");
		if (url != null && !url.isBlank()) {
			return url.trim();
		}
		String host = environment.getProperty("spring.data.redis.host");
		String port = environment.getProperty("spring.data.redis.port");
		if ((host == null || host.isBlank()) && (port == null || port.isBlank())) {
			return null;
		}
		boolean ssl = environment.getProperty("spring.data.redis.ssl.enabled", Boolean.class, false);
		StringBuilder uri = new StringBuilder(ssl ? "rediss://" : "redis://");
		String username = environment.getProperty("spring.data.redis.username");
		String password = environment.getProperty("spring.data.redis.password");
		if (password != null && !password.isEmpty()) {
			if (username != null && !username.isEmpty()) {
				uri.append(encode(username));
			}
			uri.append(':').append(encode(password)).append('@');
		}
		uri.append((host != null && !host.isBlank()) ? host.trim() : "localhost");
		uri.append(':').append((port != null && !port.isBlank()) ? port.trim() : "6379");
		String database = environment.getProperty("spring.data.redis.database");
		if (database != null && !database.isBlank() && !database.trim().equals("0")) {
			uri.append('/').append(database.trim());
		}
		return uri.toString();
	}

	private static String encode(String text) {
		return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
	}

}
