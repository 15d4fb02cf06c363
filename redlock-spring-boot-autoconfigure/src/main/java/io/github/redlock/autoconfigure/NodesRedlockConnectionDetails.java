package io.github.redlock.autoconfigure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;

/**
 * {@link RedlockConnectionDetails} of the {@link RedlockNodeConnectionDetails} beans, one
 * per Docker Compose service or Testcontainers container: the quorum, in the order of the
 * nodes' names, so that the same services give the same quorum on every start. Reads the
 * nodes when the registry is built, not before, since a container's port is known only
 * once it has started.
 *
 * @author redlock contributors
 */
final class NodesRedlockConnectionDetails implements RedlockConnectionDetails {

	private final List<RedlockNodeConnectionDetails> nodes;

	NodesRedlockConnectionDetails(List<RedlockNodeConnectionDetails> nodes) {
		List<RedlockNodeConnectionDetails> sorted = new ArrayList<>(nodes);
		sorted.sort(Comparator.comparing(RedlockNodeConnectionDetails::getName));
		this.nodes = List.copyOf(sorted);
	}

	@Override
	public List<String> getNodes() {
		boolean ssl = isSsl();
		return this.nodes.stream().map((node) -> uri(node, ssl)).toList();
	}

	private static String uri(RedlockNodeConnectionDetails node, boolean ssl) {
		String host = node.getHost();
		return (ssl ? "rediss://" : "redis://")
				+ ((host.contains(":") && !host.startsWith("[")) ? "[" + host + "]" : host) + ":" + node.getPort();
	}

	@Override
	public String getUsername() {
		return shared("user name", RedlockNodeConnectionDetails::getUsername);
	}

	@Override
	public String getPassword() {
		return shared("password", RedlockNodeConnectionDetails::getPassword);
	}

	/**
	 * The registry has one login for every node: nodes that differ would fail to
	 * authenticate one by one, after start-up.
	 */
	private String shared(String what, Function<RedlockNodeConnectionDetails, String> value) {
		String first = value.apply(this.nodes.get(0));
		for (RedlockNodeConnectionDetails node : this.nodes) {
			if (!Objects.equals(value.apply(node), first)) {
				throw new InvalidRedlockConfigurationException(
						"The redlock nodes " + names() + " do not share one " + what + ": "
								+ this.nodes.get(0).getName() + " and " + node.getName() + " differ",
						"Give every node of the quorum the same " + what
								+ ", as one registry logs in to all of them alike");
			}
		}
		return first;
	}

	/**
	 * Returns whether every node starts empty with each development or test run.
	 */
	boolean isEphemeral() {
		return this.nodes.stream().allMatch(RedlockNodeConnectionDetails::isEphemeral);
	}

	/**
	 * Returns the first node's bundle: the registry has one TLS setting for every node,
	 * as with {@code redlock.ssl.bundle}.
	 */
	@Override
	public @Nullable SslBundle getSslBundle() {
		SslBundle first = this.nodes.get(0).getSslBundle();
		for (RedlockNodeConnectionDetails node : this.nodes) {
			if ((node.getSslBundle() == null) != (first == null)) {
				RedlockNodeConnectionDetails tls = (first != null) ? this.nodes.get(0) : node;
				RedlockNodeConnectionDetails plain = (first != null) ? node : this.nodes.get(0);
				throw new InvalidRedlockConfigurationException(
						"The redlock nodes " + names() + " mix TLS and plain connections: " + tls.getName()
								+ " has an SSL bundle and " + plain.getName() + " has none",
						"Give every node of the quorum the same SSL bundle, or none, as one registry connects to all"
								+ " of them alike");
			}
		}
		return first;
	}

	private List<String> names() {
		return this.nodes.stream().map(RedlockNodeConnectionDetails::getName).toList();
	}

	@Override
	public String toString() {
		return "RedlockConnectionDetails of the nodes " + names();
	}

}
