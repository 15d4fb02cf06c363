package io.github.redlock.embedded;

import java.util.ArrayList;
import java.util.List;

/**
 * One slot on its way from one master to another, moved step by step the way
 * {@code redis-cli --cluster reshard} moves it, so that a test can hold it in the middle:
 * once {@link RedisCluster#beginMigration(int, RedisNode) begun}, the source is
 * {@code MIGRATING} the slot and the target {@code IMPORTING} it, and until
 * {@link #finish()} the source answers {@code ASK} for its keys that have moved (or never
 * existed) and {@code TRYAGAIN} for a command on several keys that are split between the
 * two; the target serves only clients that send {@code ASKING} first.
 * <p>
 * Moving keys uses {@code CLUSTER GETKEYSINSLOT} and {@code MIGRATE}, so it may run while
 * clients keep writing: a key written at the source during the migration is moved by a
 * later step, and a new key goes to the target.
 *
 * @author redlock contributors
 */
public final class SlotMigration {

	private static final int BATCH = 100;

	private static final String MIGRATE_TIMEOUT_MILLIS = "10000";

	private final RedisCluster cluster;

	private final int slot;

	private final RedisNode source;

	private final RedisNode target;

	private volatile boolean finished;

	SlotMigration(RedisCluster cluster, int slot, RedisNode source, RedisNode target) {
		this.cluster = cluster;
		this.slot = slot;
		this.source = source;
		this.target = target;
	}

	/**
	 * Marks the slot {@code IMPORTING} at the target, then {@code MIGRATING} at the
	 * source, in the order that never leaves a key without a server that answers for it.
	 */
	void begin(NodeLinks links) {
		String slot = String.valueOf(this.slot);
		links.call(this.target, "CLUSTER", "SETSLOT", slot, "IMPORTING", this.cluster.nodeId(this.source));
		links.call(this.source, "CLUSTER", "SETSLOT", slot, "MIGRATING", this.cluster.nodeId(this.target));
	}

	/**
	 * Moves up to {@code max} of the keys still at the source to the target.
	 * @param max how many keys to move at most
	 * @return how many were listed at the source and sent (a key that expired on the way
	 * counts, though nothing arrives)
	 */
	public int moveKeys(int max) {
		requireUnfinished();
		try (NodeLinks links = new NodeLinks()) {
			return moveKeys(links, max);
		}
	}

	/**
	 * Moves the given keys, which must be in this slot, to the target; a key that is not
	 * at the source is skipped.
	 * @param keys the keys
	 */
	public void moveKeys(String... keys) {
		requireUnfinished();
		for (String key : keys) {
			if (ClusterSlots.slot(key) != this.slot) {
				throw new IllegalArgumentException(
						"Key '" + key + "' is in slot " + ClusterSlots.slot(key) + ", not " + this.slot);
			}
		}
		try (NodeLinks links = new NodeLinks()) {
			migrate(links, List.of(keys));
		}
	}

	/**
	 * Returns the keys of the slot still at the source.
	 * @return the keys
	 */
	@SuppressWarnings("unchecked")
	public List<String> keysAtSource() {
		try (NodeLinks links = new NodeLinks()) {
			String slot = String.valueOf(this.slot);
			Object count = links.call(this.source, "CLUSTER", "COUNTKEYSINSLOT", slot);
			return (List<String>) links.call(this.source, "CLUSTER", "GETKEYSINSLOT", slot, String.valueOf(count));
		}
	}

	/**
	 * Moves every key left at the source, hands the slot to the target on every master,
	 * and waits until the whole cluster agrees that the target owns it.
	 */
	public void finish() {
		requireUnfinished();
		try (NodeLinks links = new NodeLinks()) {
			finish(links);
		}
		this.cluster.awaitHealthy();
	}

	@SuppressWarnings("unchecked")
	int moveKeys(NodeLinks links, int max) {
		List<String> keys = (List<String>) links.call(this.source, "CLUSTER", "GETKEYSINSLOT",
				String.valueOf(this.slot), String.valueOf(max));
		if (!keys.isEmpty()) {
			migrate(links, keys);
		}
		return keys.size();
	}

	private void migrate(NodeLinks links, List<String> keys) {
		List<String> command = new ArrayList<>(List.of("MIGRATE", "127.0.0.1", String.valueOf(this.target.port()), "",
				"0", MIGRATE_TIMEOUT_MILLIS, "KEYS"));
		command.addAll(keys);
		links.call(this.source, command.toArray(String[]::new));
	}

	/**
	 * Moves the keys that are left, then assigns the slot to the target: at the target
	 * first (which, importing it, takes a new configuration epoch, so that the change
	 * wins over the old owner's claim everywhere), then at the source, then at every
	 * other running master; replicas learn it from them.
	 */
	void finish(NodeLinks links) {
		while (moveKeys(links, BATCH) > 0) {
			// clients may keep writing: repeat until the source holds none of the slot's
			// keys
		}
		String targetId = this.cluster.nodeId(this.target);
		String slot = String.valueOf(this.slot);
		links.call(this.target, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
		links.call(this.source, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
		for (RedisNode master : this.cluster.masters()) {
			if (master != this.target && master != this.source && this.cluster.isLive(master)) {
				links.call(master, "CLUSTER", "SETSLOT", slot, "NODE", targetId);
			}
		}
		this.finished = true;
	}

	private void requireUnfinished() {
		if (this.finished) {
			throw new IllegalStateException("The migration of slot " + this.slot + " is finished");
		}
	}

	/**
	 * Returns the slot that moves.
	 * @return the slot
	 */
	public int slot() {
		return this.slot;
	}

	/**
	 * Returns the master the slot moves from.
	 * @return the source
	 */
	public RedisNode source() {
		return this.source;
	}

	/**
	 * Returns the master the slot moves to.
	 * @return the target
	 */
	public RedisNode target() {
		return this.target;
	}

	@Override
	public String toString() {
		return "SlotMigration[" + this.slot + ": " + this.source.name() + " -> " + this.target.name()
				+ (this.finished ? ", finished]" : "]");
	}

}
