package io.github.redlock.engine.quorum;

import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;

import io.github.redlock.engine.NodeState;
import io.github.redlock.engine.node.NodeTrust;
import io.github.redlock.engine.node.QuorumMember;
import org.jspecify.annotations.Nullable;

/**
 * Where each node stands toward the quorum ({@link NodeState}), read from its connection
 * and trust, and who is told when that changes. {@link FleetAvailability} logs the fleet
 * as a whole; this tells each node's change, for events an operator can read later.
 * <p>
 * <b>Invariant:</b> each change of a node's state, and each entry into the restart guard,
 * is told once, from the first look after every node has been tried on; before then, and
 * while the fleet is stopped, nothing is told, so that connecting and disconnecting on
 * purpose raise no events.
 *
 * @author redlock contributors
 */
public final class NodeStateChanges {

	private static final DateTimeFormatter CLOCK_TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

	private final List<QuorumMember> nodes;

	private final @Nullable NodeState[] told;

	/** The guard cause told with each node's {@link NodeState#OUT}, if any. */
	private final NodeTrust.@Nullable GuardCause[] toldCauses;

	private volatile @Nullable Listener listener;

	private boolean watching;

	NodeStateChanges(List<QuorumMember> nodes) {
		this.nodes = nodes;
		this.told = new NodeState[nodes.size()];
		this.toldCauses = new NodeTrust.GuardCause[nodes.size()];
	}

	/**
	 * Returns where a node stands now: down unless connected, out unless trusted.
	 */
	static NodeState stateOf(QuorumMember node) {
		if (!node.isUp()) {
			return NodeState.DOWN;
		}
		return node.isTrusted() ? NodeState.USABLE : NodeState.OUT;
	}

	void listen(Listener listener) {
		this.listener = listener;
	}

	/**
	 * Starts telling, once every node has been tried: a node not usable then is told at
	 * once.
	 */
	synchronized void start() {
		this.watching = true;
		changed();
	}

	/**
	 * Stops telling until the next {@link #start()}, before the fleet disconnects on
	 * purpose.
	 */
	synchronized void pause() {
		this.watching = false;
		Arrays.fill(this.told, null);
		Arrays.fill(this.toldCauses, null);
	}

	/**
	 * Looks again after a node's connection or trust may have changed.
	 */
	synchronized void changed() {
		Listener current = this.listener;
		if (!this.watching || current == null) {
			return;
		}
		for (int i = 0; i < this.told.length; i++) {
			QuorumMember node = this.nodes.get(i);
			NodeState state = stateOf(node);
			NodeTrust.GuardCause cause = (state == NodeState.OUT) ? node.guardCause() : null;
			NodeState before = this.told[i];
			boolean guardEntered = cause != null && cause != this.toldCauses[i];
			this.told[i] = state;
			this.toldCauses[i] = cause;
			if ((state == before && !guardEntered) || (before == null && state == NodeState.USABLE)) {
				continue;
			}
			try {
				current.changed(node.toString(), state, detail(node, state));
			}
			catch (RuntimeException ex) {
				// only telling: it must never keep the fleet from counting
			}
		}
	}

	private static String detail(QuorumMember node, NodeState state) {
		return switch (state) {
			case USABLE -> "counts toward quorums again";
			case DOWN -> "disconnected; reconnecting";
			case OUT -> out(node);
		};
	}

	private static String out(QuorumMember node) {
		NodeTrust.GuardCause cause = node.guardCause();
		if (cause == null) {
			return "connected, but counts toward no quorum until checked (whether it restarted, its permissions, "
					+ "its clock)";
		}
		StringBuilder detail = new StringBuilder("kept out by the restart guard: ").append(switch (cause) {
			case RESTARTED -> "restarted";
			case NEW_OR_FLUSHED -> "new or flushed";
			case MARKER_CHANGED -> "lost its data (its marker key is gone or changed)";
		});
		long countsFrom = node.countsFrom();
		long left = countsFrom - System.nanoTime();
		if (countsFrom != Long.MAX_VALUE && left > 0) {
			detail.append(", counts again at about ").append(CLOCK_TIME.format(LocalTime.now().plusNanos(left)));
		}
		return detail.toString();
	}

	/**
	 * Hears each node's change.
	 */
	@FunctionalInterface
	public interface Listener {

		/**
		 * A node's state changed.
		 * @param node the node, as a URI without credentials
		 * @param state where it stands now
		 * @param detail why, for an operator
		 */
		void changed(String node, NodeState state, String detail);

	}

}
