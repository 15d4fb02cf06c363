package io.github.redlock.health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.redlock.engine.NodeStatus;
import io.github.redlock.engine.RedlockRegistry;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * {@link HealthIndicator} for the redlock nodes: {@code UP} while a quorum of them can
 * take locks, {@code DOWN} when too few can. The details say how many more nodes may
 * fail, and, for each node, its latency or why it does not count (unreachable, timed out,
 * or kept out by the restart guard). Node URIs appear without credentials.
 * <p>
 * A member of the quorum that is a Redis or Valkey Cluster is one entry of {@code nodes},
 * with its masters under {@code masters}, each with its own status, latency and problem;
 * the member is {@code DOWN}, and counts as one member down, when any master is, or when
 * some slots have no master (the member's problem names those slots, and the slots of
 * each master that is out).
 *
 * @author redlock contributors
 * @see RedlockRegistry#checkNodes()
 */
public class RedlockHealthIndicator extends AbstractHealthIndicator {

	private final RedlockRegistry registry;

	/**
	 * Creates an indicator for the nodes of the given registry.
	 * @param registry the registry
	 */
	public RedlockHealthIndicator(RedlockRegistry registry) {
		super("Redlock health check failed");
		this.registry = registry;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<NodeStatus> nodes = this.registry.checkNodes();
		int quorum = this.registry.quorum();
		long usable = nodes.stream().filter(NodeStatus::usable).count();
		// a cluster's master that fails takes its whole member out: members are counted
		String unit = nodes.stream().anyMatch((node) -> !node.masters().isEmpty()) ? "member" : "node";
		builder.status((usable >= quorum) ? Status.UP : Status.DOWN)
			.withDetail("quorum", quorum)
			.withDetail("usable", usable + " of " + nodes.size())
			.withDetail("tolerates",
					(usable >= quorum) ? (usable - quorum) + " more " + unit + " failure(s)"
							: "nothing: no lock can be acquired or extended until " + (quorum - usable) + " more "
									+ unit + "(s) count")
			.withDetail("nodes", describeAll(nodes));
	}

	private static Map<String, Object> describeAll(List<NodeStatus> nodes) {
		Map<String, Object> details = new LinkedHashMap<>();
		for (NodeStatus node : nodes) {
			details.put(node.node(), describe(node));
		}
		return details;
	}

	private static Map<String, Object> describe(NodeStatus node) {
		Map<String, Object> description = new LinkedHashMap<>();
		description.put("status", (node.usable() ? Status.UP : Status.DOWN).getCode());
		if (node.latency() != null) {
			description.put("latency", String.format(Locale.ROOT, "%.2fms", node.latency().toNanos() / 1e6));
		}
		if (node.problem() != null) {
			description.put("problem", node.problem());
		}
		if (node.warning() != null) {
			description.put("warning", node.warning());
		}
		if (!node.masters().isEmpty()) {
			description.put("masters", describeAll(node.masters()));
		}
		return description;
	}

}
