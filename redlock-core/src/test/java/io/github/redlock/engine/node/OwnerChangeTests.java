package io.github.redlock.engine.node;

import io.github.redlock.engine.node.OwnerChange.Master;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every case of the decision whether a slot's owner changed by migration or by failover,
 * without a server: the stamp, the master that owns the slot now, and the cluster as it
 * sees it.
 */
class OwnerChangeTests {

	private static final String ZEROS = "0000000000000000000000000000000000000000";

	private static final String A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

	private static final String B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

	private static final String C = "cccccccccccccccccccccccccccccccccccccccc";

	/** B is a master; A a master too, or failed, or B's replica, as each test says. */
	private static Partitions topology(String flagsOfA, String masterOfA) {
		return ClusterPartitionParser.parse(
				String.join("\n", A + " 127.0.0.1:7001@17001 " + flagsOfA + " " + masterOfA + " 0 0 1 connected 0-5460",
						B + " 127.0.0.1:7002@17002 myself,master - 0 0 2 connected 5461-10922",
						C + " 127.0.0.1:7003@17003 master - 0 0 3 connected 10923-16383", ""));
	}

	private static final Master B_NEVER_PROMOTED = new Master(B, "replid-of-b", ZEROS);

	@Test
	void aSlotStampedByThisMasterUnderItsReplicationIdIsUnchanged() {
		assertThat(OwnerChange.judge(B + " replid-of-b", true, B_NEVER_PROMOTED, topology("master", "-")))
			.isEqualTo(OwnerChange.UNCHANGED);
	}

	@Test
	void aSlotWithoutStampOrMarkerIsNew() {
		assertThat(OwnerChange.judge(null, false, B_NEVER_PROMOTED, topology("master", "-")))
			.isEqualTo(OwnerChange.NEW);
	}

	@Test
	void aMarkerWithoutAStampHasAnUnknownHistoryTakenForAFailover() {
		assertThat(OwnerChange.judge(null, true, B_NEVER_PROMOTED, topology("master", "-")))
			.isEqualTo(OwnerChange.FAILED_OVER);
	}

	@Test
	void aStampOfAnotherMasterThatStillIsOneMeansAMigration() {
		assertThat(OwnerChange.judge(A + " replid-of-a", true, B_NEVER_PROMOTED, topology("master", "-")))
			.isEqualTo(OwnerChange.MIGRATED);
	}

	@Test
	void aStampOfAMasterWhoseReplicationIdThisOneInheritedMeansAFailover() {
		// A was demoted by hand and is a master again elsewhere: the inherited id decides
		Master promoted = new Master(B, "replid-of-b", "replid-of-a");
		assertThat(OwnerChange.judge(A + " replid-of-a", true, promoted, topology("master", "-")))
			.isEqualTo(OwnerChange.FAILED_OVER);
	}

	@Test
	void aStampOfAMasterNowFailedOrAReplicaOrUnknownMeansAFailover() {
		String stamp = A + " replid-of-a";
		assertThat(OwnerChange.judge(stamp, true, B_NEVER_PROMOTED, topology("master,fail", "-")))
			.isEqualTo(OwnerChange.FAILED_OVER);
		assertThat(OwnerChange.judge(stamp, true, B_NEVER_PROMOTED, topology("master,fail?", "-")))
			.isEqualTo(OwnerChange.FAILED_OVER);
		assertThat(OwnerChange.judge(stamp, true, B_NEVER_PROMOTED, topology("slave", B)))
			.isEqualTo(OwnerChange.FAILED_OVER);
		assertThat(OwnerChange.judge("dddddddddddddddddddddddddddddddddddddddd replid-of-d", true, B_NEVER_PROMOTED,
				topology("master", "-")))
			.isEqualTo(OwnerChange.FAILED_OVER);
	}

	@Test
	void aStampOfThisMasterUnderAnotherReplicationIdMeansItsHistoryChanged() {
		assertThat(OwnerChange.judge(B + " an-older-replid", true, B_NEVER_PROMOTED, topology("master", "-")))
			.isEqualTo(OwnerChange.FAILED_OVER);
	}

	@Test
	void anUnreadableStampIsTakenForAFailover() {
		assertThat(OwnerChange.judge("garbage", true, B_NEVER_PROMOTED, topology("master", "-")))
			.isEqualTo(OwnerChange.FAILED_OVER);
	}

}
