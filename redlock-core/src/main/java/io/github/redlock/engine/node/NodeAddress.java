package io.github.redlock.engine.node;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.redlock.engine.InvalidOptionException;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

/**
 * A node's connection URI and a display form that never shows its password.
 *
 * @author redlock contributors
 */
public final class NodeAddress {

	private static final String MASK = "******";

	private final RedisURI uri;

	private final String display;

	private final @Nullable String tlsWarning;

	private NodeAddress(RedisURI uri, String display) {
		this.uri = uri;
		this.display = display;
		this.tlsWarning = !uri.isSsl() ? null : switch (uri.getVerifyMode()) {
			case FULL -> null;
			case CA -> "TLS does not verify the host name (verifyPeer=CA): any server with a certificate from a"
					+ " trusted CA is accepted";
			case NONE -> "TLS verifies no certificate (verifyPeer=NONE): any server is accepted, so the connection"
					+ " can be intercepted";
		};
	}

	/**
	 * What applies to every node whose URI does not say otherwise.
	 *
	 * @param username the user name sent with the password, or {@code null}
	 * @param password the password for nodes whose URI has no credentials, or
	 * {@code null}
	 * @param ssl whether every node uses TLS
	 */
	public record Defaults(@Nullable String username, char @Nullable [] password, boolean ssl) {

	}

	/**
	 * Parses the nodes of a registry: at least one, each a distinct server, with the
	 * defaults applied to each.
	 * @param uris the URIs, in configuration order
	 * @param defaults credentials and TLS for the nodes whose URI has none
	 * @return the addresses, in the same order
	 * @throws InvalidOptionException naming the node and the fix
	 */
	public static List<NodeAddress> parseAll(List<String> uris, Defaults defaults) {
		if (uris.isEmpty()) {
			throw new InvalidOptionException("No nodes",
					"give the URIs of independent masters, such as redis://10.0.0.1:6379 (3 or 5 of them)");
		}
		List<NodeAddress> addresses = new ArrayList<>(uris.size());
		Set<String> seen = new HashSet<>();
		for (int i = 0; i < uris.size(); i++) {
			NodeAddress address = parse(i, uris.get(i), defaults);
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
	 * @param defaults credentials and TLS for a URI that has none
	 * @return the address
	 * @throws IllegalArgumentException naming the node if the URI is malformed
	 */
	private static NodeAddress parse(int index, String text, Defaults defaults) {
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
							+ redact(String.valueOf(ex.getMessage()), trimmed) + ")",
					"write it as redis://[[user]:password@]host:port[/database]");
		}
		catch (URISyntaxException ex) {
			throw new InvalidOptionException(
					"Node " + index + " '" + redact(trimmed) + "' is not a valid URI ("
							+ redact(ex.getReason(), trimmed) + ")",
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
		String userInfo = userInfo(trimmed);
		if ((userInfo == null || userInfo.isEmpty()) && defaults.password() != null) {
			if (defaults.username() != null) {
				uri.setAuthentication(defaults.username(), defaults.password());
			}
			else {
				uri.setAuthentication(defaults.password());
			}
		}
		if (defaults.ssl()) {
			uri.setSsl(true);
		}
		StringBuilder display = new StringBuilder(uri.isSsl() ? "rediss://" : "redis://");
		display.append(uri.getHost()).append(':').append(uri.getPort());
		if (uri.getDatabase() != 0) {
			display.append('/').append(uri.getDatabase());
		}
		return new NodeAddress(uri, display.toString());
	}

	/**
	 * Masks any credentials in a URI-like text, for messages about text that did not
	 * parse: everything between the scheme (or the start) and the last {@code @}, so that
	 * a password holding {@code /} or {@code @}, or a URI without a scheme, is masked
	 * too.
	 */
	static String redact(String text) {
		String userInfo = userInfo(text);
		return (userInfo != null) ? text.replace(userInfo + "@", MASK + "@") : text;
	}

	/**
	 * Masks a message about a URI that did not parse: the credentials of the URI,
	 * wherever the message repeats them, even decoded.
	 */
	private static String redact(String message, String text) {
		String userInfo = userInfo(text);
		if (userInfo == null) {
			return message;
		}
		String masked = message.replace(userInfo, MASK);
		for (String part : userInfo.split(":", -1)) {
			if (part.length() >= 3) {
				masked = masked.replace(part, MASK);
				try {
					masked = masked.replace(URLDecoder.decode(part, StandardCharsets.UTF_8), MASK);
				}
				catch (IllegalArgumentException ex) {
					// not encoded: replaced above
				}
			}
		}
		return masked;
	}

	private static @Nullable String userInfo(String text) {
		int scheme = text.indexOf("://");
		int start = (scheme >= 0) ? scheme + 3 : 0;
		int at = text.lastIndexOf('@');
		return (at >= start) ? text.substring(start, at) : null;
	}

	/**
	 * Returns why this node's TLS is weaker than full verification, or {@code null}.
	 */
	/**
	 * Returns the address of another server of the same cluster: this one's credentials,
	 * TLS and timeouts, on {@code host} and {@code port} as the cluster names them.
	 */
	NodeAddress withHostAndPort(String host, int port) {
		RedisURI other = RedisURI.builder(this.uri).withHost(host).withPort(port).build();
		return new NodeAddress(other, (other.isSsl() ? "rediss://" : "redis://") + host + ":" + port);
	}

	public @Nullable String tlsWarning() {
		return this.tlsWarning;
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
