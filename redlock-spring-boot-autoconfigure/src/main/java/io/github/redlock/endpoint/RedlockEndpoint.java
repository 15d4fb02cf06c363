package io.github.redlock.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import io.github.redlock.LockInfo;
import io.github.redlock.engine.NodeStatus;
import io.github.redlock.engine.RedlockRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@link Endpoint @Endpoint} {@code redlock}: {@code GET /actuator/redlock} asks every
 * node whether it counts toward a quorum now ({@link RedlockRegistry#checkNodes()}) and
 * shows the recent events ({@link RedlockEvents}), and {@code GET
 * /actuator/redlock/{key}} shows who holds one lock on which node
 * ({@link RedlockRegistry#inspect(String)}). Each call asks the nodes and answers within
 * about one node timeout. Node addresses never show credentials, and a lock's secret
 * value is never shown (only a fingerprint that tells holders apart). A member of the
 * quorum that is a Redis or Valkey Cluster is one node whose {@code masters} list each of
 * its masters' state. Over the web, {@link RedlockEndpointWebExtension} adds
 * {@code DELETE /actuator/redlock/{key}}, off unless enabled.
 *
 * @author redlock contributors
 */
@Endpoint(id = "redlock")
public class RedlockEndpoint {

	private final RedlockRegistry registry;

	private final @Nullable RedlockEvents events;

	/**
	 * Creates an endpoint for the given registry, without recent events.
	 * @param registry the lock registry
	 */
	public RedlockEndpoint(RedlockRegistry registry) {
		this(registry, null);
	}

	/**
	 * Creates an endpoint for the given registry that shows the recent events.
	 * @param registry the lock registry
	 * @param events the recent events of the registry (a listener of it), or {@code null}
	 */
	public RedlockEndpoint(RedlockRegistry registry, @Nullable RedlockEvents events) {
		this.registry = registry;
		this.events = events;
	}

	/**
	 * Returns the state of every node, what the quorum tolerates, and the recent events.
	 * @return the nodes
	 */
	@ReadOperation
	public NodesDescriptor nodes() {
		List<NodeStatus> statuses = this.registry.checkNodes();
		int quorum = this.registry.quorum();
		int usable = (int) statuses.stream().filter(NodeStatus::usable).count();
		List<NodeDescriptor> nodes = statuses.stream().map(NodeDescriptor::of).toList();
		return new NodesDescriptor(usable >= quorum, quorum, usable, Math.max(0, usable - quorum), nodes,
				(this.events != null) ? this.events.recent() : List.of());
	}

	/**
	 * Returns who holds the lock of the given key on which node. Keys that contain
	 * {@code /} are given whole: {@code /actuator/redlock/jobs/nightly} shows
	 * {@code jobs/nightly}.
	 * @param key the lock's key, as the application gives it (without the key prefix)
	 * @return the lock
	 */
	@ReadOperation
	public LockDescriptor lock(@Selector(match = Selector.Match.ALL_REMAINING) String[] key) {
		String joined = String.join("/", key);
		LockInfo info;
		try {
			info = this.registry.inspect(joined);
		}
		catch (IllegalArgumentException ex) {
			throw invalidKey(ex);
		}
		return new LockDescriptor(info.key(), info.quorum(), info.holder().orElse(null), info.isHeldAnywhere(),
				info.nodes().stream().map(LockNodeDescriptor::of).toList());
	}

	/**
	 * Answers 400 for a key the registry refuses (empty, too long), saying why.
	 */
	// an invalid key's IllegalArgumentException says what is wrong with it
	@SuppressWarnings("NullAway")
	static InvalidEndpointRequestException invalidKey(IllegalArgumentException ex) {
		return new InvalidEndpointRequestException(ex.getMessage(), "Invalid lock key");
	}

	private static @Nullable String millis(@Nullable Duration duration) {
		return (duration != null) ? String.format(Locale.ROOT, "%.2fms", duration.toNanos() / 1e6) : null;
	}

	/**
	 * The nodes of a registry.
	 *
	 * @param canLock whether a quorum of nodes is usable, so that locks can be acquired
	 * and extended
	 * @param quorum how many nodes must agree
	 * @param usable how many nodes count toward a quorum now
	 * @param toleratedFailures how many more nodes may fail before no lock can be
	 * acquired: {@code usable - quorum}, at least 0
	 * @param nodes each node, in configuration order
	 * @param events the recent events of the locks and nodes of this instance, the newest
	 * first (see {@link RedlockEvents})
	 */
	public record NodesDescriptor(boolean canLock, int quorum, int usable, int toleratedFailures,
			List<NodeDescriptor> nodes, List<RedlockEvents.LockEvent> events) implements OperationResponseBody {

		/**
		 * Creates the descriptor without events.
		 * @param canLock whether a quorum of nodes is usable
		 * @param quorum how many nodes must agree
		 * @param usable how many nodes count toward a quorum now
		 * @param toleratedFailures how many more nodes may fail
		 * @param nodes each node, in configuration order
		 */
		public NodesDescriptor(boolean canLock, int quorum, int usable, int toleratedFailures,
				List<NodeDescriptor> nodes) {
			this(canLock, quorum, usable, toleratedFailures, nodes, List.of());
		}

	}

	/**
	 * One node, or one member of the quorum that is a cluster.
	 *
	 * @param address the node's URI, without credentials; for a cluster, its name
	 * @param state {@code UP} if it counts toward a quorum now, else {@code DOWN}
	 * @param latency how long the node took to answer the check, or {@code null}
	 * @param reason why it does not count, or {@code null} when it does; for a cluster,
	 * which slots have no master and, for each master that is out, its slots and why
	 * @param warning what weakens its connection though it counts (such as TLS that does
	 * not verify the host name), or {@code null}
	 * @param masters for a cluster, each master the member routes to, in the same form;
	 * {@code null} for a single node
	 */
	public record NodeDescriptor(String address, String state, @Nullable String latency, @Nullable String reason,
			@Nullable String warning, @Nullable List<NodeDescriptor> masters) {

		/**
		 * Creates the descriptor of a single node.
		 * @param address the node's URI, without credentials
		 * @param state {@code UP} or {@code DOWN}
		 * @param latency how long the node took to answer, or {@code null}
		 * @param reason why it does not count, or {@code null}
		 * @param warning what weakens its connection, or {@code null}
		 */
		public NodeDescriptor(String address, String state, @Nullable String latency, @Nullable String reason,
				@Nullable String warning) {
			this(address, state, latency, reason, warning, null);
		}

		static NodeDescriptor of(NodeStatus status) {
			return new NodeDescriptor(status.node(), status.usable() ? "UP" : "DOWN", millis(status.latency()),
					status.problem(), status.warning(),
					status.masters().isEmpty() ? null : status.masters().stream().map(NodeDescriptor::of).toList());
		}

	}

	/**
	 * One lock, as the nodes see it.
	 *
	 * @param key the lock's key
	 * @param quorum how many nodes make a quorum
	 * @param holder the owner ({@code host:pid:thread}) that holds it on a quorum, or
	 * {@code null}
	 * @param heldAnywhere whether any node holds it
	 * @param nodes the lock on each node, in configuration order
	 */
	public record LockDescriptor(String key, int quorum, @Nullable String holder, boolean heldAnywhere,
			List<LockNodeDescriptor> nodes) implements OperationResponseBody {

	}

	/**
	 * One lock on one node.
	 *
	 * @param address the node's URI, without credentials
	 * @param owner the holder's identity there, or {@code null} if the lock is free there
	 * @param holding a fingerprint of the holding acquisition (equal on every node that
	 * one acquisition wrote; never the secret lock value), or {@code null}
	 * @param remaining how long the lock lives on there, or {@code null}
	 * @param fencingCounter the key's fencing counter there, or 0 if it has none
	 * @param error why the node did not answer, or {@code null}
	 */
	public record LockNodeDescriptor(String address, @Nullable String owner, @Nullable String holding,
			@Nullable String remaining, long fencingCounter, @Nullable String error) {

		static LockNodeDescriptor of(LockInfo.NodeState state) {
			String remaining = (state.remaining() != null) ? state.remaining().toMillis() + "ms" : null;
			return new LockNodeDescriptor(state.node(), state.owner(), state.holding(), remaining,
					state.fencingCounter(), state.error());
		}

	}

}
