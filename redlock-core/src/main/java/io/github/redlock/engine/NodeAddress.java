package io.github.redlock.engine;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.lettuce.core.RedisURI;

/**
 * A node's connection URI and a display form that never shows its password.
 *
 * @author redlock contributors
 */
final class NodeAddress {

	private final RedisURI uri;

	private final String display;

	private NodeAddress(RedisURI uri, String display) {
		this.uri = uri;
		this.display = display;
	}

	/**
	 * Parses the nodes of a registry: at least one, each a distinct server.
	 * @param uris the URIs, in configuration order
	 * @return the addresses, in the same order
	 * @throws InvalidOptionException naming the node and the fix
	 */
	static List<NodeAddress> parseAll(List<String> uris) {
		if (uris.isEmpty()) {
			throw new InvalidOptionException("No nodes",
					"give the URIs of independent masters, such as redis://10.0.0.1:6379 (3 or 5 of them)");
		}
		List<NodeAddress> addresses = new ArrayList<>(uris.size());
		Set<String> seen = new HashSet<>();
		for (int i = 0; i < uris.size(); i++) {
			NodeAddress address = parse(i, uris.get(i));
			if (!seen.add(address.identity())) {
				throw new InvalidOptionException("Node " + i + " '" + address + "' is listed twice",
						"each node must be a distinct master, or one server would count twice toward the quorum");
			}
			addresses.add(address);
		}
		return addresses;
	}

	/**
	 * Parses {@code redis://[[user]:password@]host[:port][/database]} or the same with
	 * {@code rediss://} for TLS.
	 * @param index the node's position in the configuration, for messages
	 * @param text the URI
	 * @return the address
	 * @throws IllegalArgumentException naming the node if the URI is malformed
	 */
	static NodeAddress parse(int index, String text) {
		if (text == null || text.isBlank()) {
			throw new InvalidOptionException("Node " + index + " is empty", "give a URI such as redis://host:6379");
		}
		String trimmed = text.trim();
		String scheme = trimmed.contains("://") ? trimmed.substring(0, trimmed.indexOf("://")) : "";
		if (!scheme.equals("redis") && !scheme.equals("rediss")) {
			throw new InvalidOptionException(
					"Node " + index + " '" + redact(trimmed) + "' is not a redis:// or rediss:// URI",
					"write it as redis://host:6379 (or rediss:// for TLS)");
		}
		RedisURI uri;
		try {
			URI parsed = new URI(trimmed);
			if (parsed.getHost() == null) {
				throw new IllegalArgumentException("no valid host and port");
			}
			uri = RedisURI.create(trimmed);
		}
		catch (RuntimeException ex) {
			throw new InvalidOptionException(
					"Node " + index + " '" + redact(trimmed) + "' is not a valid URI ("
							+ redact(String.valueOf(ex.getMessage())) + ")",
					"write it as redis://[[user]:password@]host:port[/database]");
		}
		catch (URISyntaxException ex) {
			throw new InvalidOptionException(
					"Node " + index + " '" + redact(trimmed) + "' is not a valid URI (" + ex.getReason() + ")",
					"write it as redis://[[user]:password@]host:port[/database]");
		}
		if (uri.getHost() == null || uri.getHost().isBlank()) {
			throw new InvalidOptionException("Node " + index + " '" + redact(trimmed) + "' has no host",
					"write it as redis://host:6379");
		}
		if (uri.getSentinels() != null && !uri.getSentinels().isEmpty()) {
			throw new InvalidOptionException("Node " + index + " '" + redact(trimmed) + "' is a Sentinel URI",
					"Redlock needs independent masters, each given as redis://host:port");
		}
		StringBuilder display = new StringBuilder(uri.isSsl() ? "rediss://" : "redis://");
		String user = userName(trimmed);
		if (!user.isEmpty()) {
			display.append(user).append('@');
		}
		display.append(uri.getHost()).append(':').append(uri.getPort());
		if (uri.getDatabase() != 0) {
			display.append('/').append(uri.getDatabase());
		}
		return new NodeAddress(uri, display.toString());
	}

	private static String userName(String text) {
		int start = text.indexOf("://") + 3;
		int at = text.indexOf('@', start);
		int slash = text.indexOf('/', start);
		if (at < 0 || (slash >= 0 && slash < at)) {
			return "";
		}
		String userInfo = text.substring(start, at);
		int colon = userInfo.indexOf(':');
		return (colon >= 0) ? userInfo.substring(0, colon) : userInfo;
	}

	/**
	 * Removes any password from a URI-like text, for messages about text that did not
	 * parse.
	 */
	static String redact(String text) {
		return text.replaceAll("(://)[^@/]*@", "$1***@");
	}

	RedisURI uri() {
		return this.uri;
	}

	/**
	 * Returns what identifies the node's data: host, port and database.
	 */
	String identity() {
		return this.uri.getHost().toLowerCase(Locale.ROOT) + ":" + this.uri.getPort() + "/" + this.uri.getDatabase();
	}

	@Override
	public String toString() {
		return this.display;
	}

}
