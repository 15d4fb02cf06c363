package io.github.redlock.engine;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One node as a registry sees it now, for health checks and operators.
 *
 * @param node the node, as a URI without credentials
 * @param usable whether it counts toward a quorum now: connected, answering, and not kept
 * out by the restart guard
 * @param latency how long it took to answer the check (a script reading the node marker),
 * or {@code null} if it did not answer
 * @param problem why it does not count, or {@code null} when it does
 * @param warning what weakens the node's connection though it counts, such as TLS that
 * does not verify the host name, or {@code null}
 * @param masters for a member that is a cluster, the status of each of its masters; empty
 * for a single node
 * @author redlock contributors
 * @see RedlockRegistry#checkNodes()
 */
public record NodeStatus(String node, boolean usable, @Nullable Duration latency, @Nullable String problem,
		@Nullable String warning, List<NodeStatus> masters) {

	public NodeStatus {
		masters = (masters != null) ? List.copyOf(masters) : List.of();
	}

	/**
	 * Creates the status of a single node.
	 * @param node the node, as a URI without credentials
	 * @param usable whether it counts toward a quorum now
	 * @param latency how long it took to answer, or {@code null}
	 * @param problem why it does not count, or {@code null} when it does
	 * @param warning what weakens its connection though it counts, or {@code null}
	 */
	public NodeStatus(String node, boolean usable, @Nullable Duration latency, @Nullable String problem,
			@Nullable String warning) {
		this(node, usable, latency, problem, warning, List.of());
	}

	/**
	 * Creates a status without a warning.
	 * @param node the node, as a URI without credentials
	 * @param usable whether it counts toward a quorum now
	 * @param latency how long it took to answer, or {@code null}
	 * @param problem why it does not count, or {@code null} when it does
	 */
	public NodeStatus(String node, boolean usable, @Nullable Duration latency, @Nullable String problem) {
		this(node, usable, latency, problem, null);
	}

	@Override
	@SuppressWarnings("NullAway") // a usable node answered: its latency is set
	public String toString() {
		return this.node + ": " + (this.usable ? "up, " + this.latency.toMillis() + "ms" : this.problem);
	}

}
