package io.github.redlock.engine.node;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;

/**
 * One cluster member's view of its topology at one refresh: which master's client owns
 * each slot, and what each master was (its node id, config epoch and slots). Immutable: a
 * refresh makes a new one ({@link ClusterMember}). It only says where to send; whether a
 * reply counts rests on the master's trust.
 *
 * @author redlock contributors
 */
final class ClusterView {

	static final ClusterView EMPTY = new Builder().build();

	private final @Nullable NodeClient[] owners;

	private final List<NodeClient> masters;

	/** Per master: its node id, config epoch and slots, as this view read them. */
	private final Map<NodeClient, String> roles;

	private final boolean coversEverySlot;

	private ClusterView(@Nullable NodeClient[] owners, List<NodeClient> masters, Map<NodeClient, String> roles) {
		this.owners = owners;
		this.masters = List.copyOf(masters);
		this.roles = roles;
		boolean covered = true;
		for (NodeClient owner : owners) {
			if (owner == null) {
				covered = false;
				break;
			}
		}
		this.coversEverySlot = covered;
	}

	/**
	 * Returns whether a node of {@code CLUSTER NODES} is a master that answers for slots:
	 * not failed, not a replica, and with slots.
	 */
	static boolean servesSlots(RedisClusterNode node) {
		return (node.is(NodeFlag.UPSTREAM) || node.is(NodeFlag.MASTER)) && !node.is(NodeFlag.FAIL)
				&& !node.is(NodeFlag.NOADDR) && !node.is(NodeFlag.HANDSHAKE) && !node.hasNoSlots();
	}

	/** Returns the client of the master that owns the slot, or {@code null}. */
	@Nullable NodeClient owner(int slot) {
		return this.owners[slot];
	}

	List<NodeClient> masters() {
		return this.masters;
	}

	boolean coversEverySlot() {
		return this.coversEverySlot;
	}

	/**
	 * Returns whether {@code client} is in {@code next} what it was in this view: the
	 * same node id, config epoch and slots.
	 */
	boolean sameRole(NodeClient client, ClusterView next) {
		String role = this.roles.get(client);
		return role != null && role.equals(next.roles.get(client));
	}

	boolean sameTopology(ClusterView next) {
		return this.roles.size() == next.roles.size()
				&& this.masters.stream().allMatch((client) -> sameRole(client, next));
	}

	/** Describes the masters and their slots, for the log. */
	String describe() {
		return this.masters.stream()
			.map((client) -> client + " (" + slotRanges(client.toString()) + ")")
			.collect(Collectors.joining(", "));
	}

	/** Returns the slot ranges of the master named so, such as {@code slots 0-5460}. */
	String slotRanges(String master) {
		return ranges(master);
	}

	/** Returns the slot ranges no master owns, such as {@code slots 0-5460}. */
	String unowned() {
		return ranges(null);
	}

	private String ranges(@Nullable String master) {
		List<String> ranges = new ArrayList<>();
		int start = -1;
		for (int slot = 0; slot <= this.owners.length; slot++) {
			boolean owned = slot < this.owners.length && ((master == null) ? this.owners[slot] == null
					: this.owners[slot] != null && this.owners[slot].toString().equals(master));
			if (owned && start < 0) {
				start = slot;
			}
			else if (!owned && start >= 0) {
				ranges.add((start == slot - 1) ? String.valueOf(start) : start + "-" + (slot - 1));
				start = -1;
			}
		}
		return ranges.isEmpty() ? "no slots" : "slots " + String.join(",", ranges);
	}

	static final class Builder {

		private final @Nullable NodeClient[] owners = new NodeClient[SlotHash.SLOT_COUNT];

		private final List<NodeClient> masters = new ArrayList<>();

		private final Map<NodeClient, String> roles = new IdentityHashMap<>();

		void add(NodeClient client, RedisClusterNode node) {
			for (int slot : node.getSlots()) {
				this.owners[slot] = client;
			}
			if (!this.roles.containsKey(client)) {
				this.masters.add(client);
			}
			this.roles.put(client, node.getNodeId() + " " + node.getConfigEpoch() + " " + node.getSlots());
		}

		ClusterView build() {
			return new ClusterView(this.owners, this.masters, this.roles);
		}

	}

}
