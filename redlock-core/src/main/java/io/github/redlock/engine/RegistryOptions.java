package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Objects;
import java.util.function.Consumer;

import io.github.redlock.engine.node.KeyLayout;
import io.github.redlock.engine.node.NodeAddress;
import io.github.redlock.engine.node.SilentNodes;
import io.github.redlock.engine.quorum.MonotonicClock;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

/**
 * The options a {@link RedlockRegistry.Builder} collects, with their defaults, and the
 * engine made from them. The builder is the public face: it sets these fields and
 * documents each option; this class checks the options together and builds.
 * <p>
 * <b>Invariants.</b> Every option's default is written here once. A registry is made only
 * from options that passed every check: the settings' own ({@link RedlockSettings}), the
 * node URIs' ({@link NodeAddress}), the silent-node options' ({@link SilentNodes}), the
 * key prefix's (no brace: {@link KeyLayout}) and the credentials' (no user name without a
 * password), each failing with an {@link InvalidOptionException} that names the option
 * and the fix.
 *
 * @author redlock contributors
 */
final class RegistryOptions {

	final List<String> nodes = new ArrayList<>();

	/** The seed URIs of each member that is a cluster. */
	final List<List<String>> clusters = new ArrayList<>();

	Duration nodeTimeout = Duration.ofMillis(100);

	Duration connectTimeout = Duration.ofSeconds(2);

	double driftFactor = 0.01;

	Duration retryDelay = Duration.ofMillis(50);

	Duration retryJitter = Duration.ofMillis(50);

	String keyPrefix = "redlock:";

	Duration defaultTtl = Duration.ofSeconds(30);

	Duration defaultWaitTime = Duration.ofSeconds(10);

	Duration maxTtl = Duration.ofSeconds(60);

	Duration maxHold = Duration.ofHours(1);

	boolean restartGuard = true;

	boolean acceptEviction;

	boolean releaseHints = true;

	Duration fencingRetention = Duration.ofDays(1);

	@Nullable ClientResources clientResources;

	MonotonicClock clock = MonotonicClock.SYSTEM;

	Consumer<ClientOptions.Builder> clientOptions = (options) -> {
	};

	@Nullable String username;

	char @Nullable [] password;

	boolean ssl;

	@Nullable SslOptions sslOptions;

	final List<RegistryListener> listeners = new ArrayList<>();

	@Nullable LockObserver observer;

	/**
	 * Whether concurrent commands to one node go out in one write: off only to measure
	 * what it saves.
	 */
	boolean coalesceWrites = true;

	int silentNodeTimeouts = SilentNodes.DEFAULT_TIMEOUTS;

	Duration silentNodeProbeInterval = SilentNodes.DEFAULT_PROBE_INTERVAL;

	/** Sets the user name; an empty one is none. */
	void username(@Nullable String username) {
		this.username = (username != null && !username.isEmpty()) ? username : null;
	}

	/** Sets the password, copied; an empty one is none. */
	void password(@Nullable CharSequence password) {
		this.password = (password != null && password.length() > 0) ? password.toString().toCharArray() : null;
	}

	/**
	 * Checks the members that are clusters: each has seeds, none is listed twice, and
	 * single nodes are not given beside them.
	 */
	private List<List<NodeAddress>> clusters(NodeAddress.Defaults defaults) {
		if (this.clusters.isEmpty()) {
			return List.of();
		}
		if (!this.nodes.isEmpty()) {
			throw new InvalidOptionException("Both nodes and clusters are configured",
					"a quorum is of single masters (redlock.nodes) or of clusters (redlock.clusters), not both:"
							+ " remove one of them");
		}
		List<List<NodeAddress>> members = new ArrayList<>();
		Set<String> seen = new HashSet<>();
		for (int i = 0; i < this.clusters.size(); i++) {
			List<String> seeds = this.clusters.get(i);
			if (seeds == null || seeds.isEmpty()) {
				throw new InvalidOptionException("Cluster " + i + " has no seed URIs",
						"give one or more servers of the cluster, such as redis://10.0.1.1:6379,redis://10.0.1.2:6379");
			}
			List<NodeAddress> addresses = NodeAddress.parseAll(seeds, defaults);
			for (NodeAddress address : addresses) {
				if (!seen.add(address.toString())) {
					throw new InvalidOptionException(
							"Cluster " + i + " lists " + address + ", which an earlier cluster lists",
							"each member of the quorum must be an independent cluster, or one cluster would count twice");
				}
			}
			members.add(addresses);
		}
		return members;
	}

	/**
	 * Checks the options and makes the engine of a registry from them. No connection is
	 * made.
	 * @throws InvalidOptionException naming the option and the fix if one is invalid
	 */
	RegistryEngine engine() {
		if (this.username != null && this.password == null) {
			throw new InvalidOptionException("A username is set without a password",
					"set the password too: Redis authenticates a user only with its password");
		}
		NodeAddress.Defaults defaults = new NodeAddress.Defaults(this.username, this.password, this.ssl);
		List<List<NodeAddress>> clusters = clusters(defaults);
		List<NodeAddress> addresses = clusters.isEmpty() ? NodeAddress.parseAll(this.nodes, defaults) : List.of();
		RedlockSettings settings = new RedlockSettings(this.nodeTimeout, this.connectTimeout, this.driftFactor,
				this.retryDelay, this.retryJitter, this.keyPrefix, this.defaultTtl, this.defaultWaitTime, this.maxTtl,
				this.maxHold, this.fencingRetention, this.restartGuard);
		if (KeyLayout.hasBrace(settings.keyPrefix())) {
			throw new InvalidOptionException("keyPrefix '" + settings.keyPrefix()
					+ "' holds a brace: Redis Cluster would take the hash tag of every key on the nodes from the"
					+ " prefix instead of the lock key, which puts the keys of one lock in different slots, or"
					+ " every lock in one",
					"remove the braces from the prefix, such as 'redlock:'; each lock key is given its own hash tag"
							+ " after the prefix");
		}
		SilentNodes silentNodes = new SilentNodes(this.silentNodeTimeouts, this.silentNodeProbeInterval);
		Objects.requireNonNull(this.clock, "clock");
		SslOptions ssl = this.sslOptions;
		Consumer<ClientOptions.Builder> clientOptions = (ssl != null) ? (options) -> {
			options.sslOptions(ssl);
			this.clientOptions.accept(options);
		} : this.clientOptions;
		return new RegistryEngine(settings, silentNodes, addresses, clusters,
				new RegistryEngine.Options(this.clientResources, this.acceptEviction, clientOptions,
						this.coalesceWrites, this.clock, List.copyOf(this.listeners), this.observer,
						this.releaseHints));
	}

}
