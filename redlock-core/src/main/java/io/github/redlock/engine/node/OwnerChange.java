package io.github.redlock.engine.node;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;

/**
 * What happened to a cluster slot since a master last checked it, from the slot's owner
 * stamp (the node id and replication id of the master that checked it last) and the
 * master that owns it now: nothing, a migration, or a failover. A pure function of its
 * inputs, so that every case is unit-tested without a server; which master, topology and
 * stamp it is given is the check's business.
 * <p>
 * <b>Invariants.</b> This class alone decides whether a change of a slot's owner counts
 * as a failover, which the restart guard treats as a loss of the slot's data. When in
 * doubt it says failover, which costs availability only: a migration is recognised only
 * when the stamping master is still a master in good standing (a migration's source stays
 * one) and this master did not inherit the stamping master's replication id (a replica
 * promoted over its master keeps that master's id as its {@code master_replid2}). A stamp
 * of this very master under another replication id means its history changed (it
 * restarted, or was demoted and promoted again): a failover too.
 *
 * @author redlock contributors
 */
enum OwnerChange {

	/** The slot has no stamp and no marker: new to the redlock, nothing to lose. */
	NEW,

	/** Stamped by this master under its current replication id. */
	UNCHANGED,

	/** Stamped by another master that still is one: the slot came by resharding. */
	MIGRATED,

	/**
	 * The slot may have lost acknowledged writes since its stamp: a replica promoted,
	 * this master's history changed, or a marker without a stamp.
	 */
	FAILED_OVER;

	/**
	 * Decides what happened to one slot.
	 * @param stamp the slot's owner stamp ({@link Master#stamp()}), or {@code null}
	 * @param markerExists whether the slot has a restart guard marker
	 * @param self the master that owns the slot now
	 * @param topology the cluster as that master sees it ({@code CLUSTER NODES})
	 * @return what happened
	 */
	static OwnerChange judge(@Nullable String stamp, boolean markerExists, Master self, Partitions topology) {
		if (stamp == null) {
			return markerExists ? FAILED_OVER : NEW;
		}
		int space = stamp.indexOf(' ');
		if (space < 0) {
			return FAILED_OVER;
		}
		String nodeId = stamp.substring(0, space);
		String replicationId = stamp.substring(space + 1);
		if (nodeId.equals(self.nodeId())) {
			return replicationId.equals(self.replicationId()) ? UNCHANGED : FAILED_OVER;
		}
		if (replicationId.equals(self.previousReplicationId())) {
			return FAILED_OVER;
		}
		RedisClusterNode stamping = topology.getPartitionByNodeId(nodeId);
		return (stamping != null && isMasterInGoodStanding(stamping)) ? MIGRATED : FAILED_OVER;
	}

	private static boolean isMasterInGoodStanding(RedisClusterNode node) {
		return (node.is(NodeFlag.UPSTREAM) || node.is(NodeFlag.MASTER)) && !node.is(NodeFlag.FAIL)
				&& !node.is(NodeFlag.EVENTUAL_FAIL) && !node.is(NodeFlag.NOADDR) && !node.is(NodeFlag.HANDSHAKE);
	}

	/**
	 * Who a cluster master is, as it says on one connection: its node id, which it keeps
	 * across restarts, and its replication ids, which a promotion changes.
	 *
	 * @param nodeId its cluster node id ({@code CLUSTER MYID})
	 * @param replicationId its {@code master_replid}
	 * @param previousReplicationId its {@code master_replid2}: the id of the master it
	 * replicated before it was promoted, or all zeros
	 */
	record Master(String nodeId, String replicationId, String previousReplicationId) {

		/**
		 * Reads who the server on a connection is.
		 * @param commands the connection's commands
		 * @return its identity
		 */
		static CompletableFuture<Master> read(RedisAsyncCommands<String, String> commands) {
			return commands.clusterMyId()
				.toCompletableFuture()
				.thenCombine(commands.info("replication").toCompletableFuture(), (id, info) -> new Master(id,
						NodeTrust.field(info, "master_replid"), NodeTrust.field(info, "master_replid2")));
		}

		/**
		 * Returns the owner stamp this master writes on the slots it checked.
		 */
		String stamp() {
			return this.nodeId + " " + this.replicationId;
		}

	}

}
