package io.github.redlock.engine.node;

import java.util.concurrent.TimeUnit;

import io.github.redlock.engine.node.NodeTrust.GuardCause;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every case of the restart guard's decision, without a server: the node's uptime, its
 * marker's age, whether this check created the marker, and the marker this client knew.
 */
class RestartDecisionTests {

	/** The guard time: the maximum TTL. */
	private static final long GUARD = TimeUnit.SECONDS.toNanos(30);

	private static final long GUARD_MICROS = TimeUnit.NANOSECONDS.toMicros(GUARD);

	/** The client's monotonic clock when the check's answer came. */
	private static final long NOW = TimeUnit.HOURS.toNanos(5);

	/** The node's clock, in microseconds: 2026-11-27, whole seconds. */
	private static final long NODE_MICROS = 1_795_000_000_000_000L;

	@Test
	void aNodeUpLongWithAnOldMarkerCounts() {
		RestartDecision decision = judge(3600, markerAged(3000), false, null);
		assertThat(decision.cause()).isNull();
	}

	@Test
	void aNodeRestartedWithItsDataIsGuardedFromItsStart() {
		RestartDecision decision = judge(10, markerAged(3000), false, null);
		assertThat(decision.cause()).isEqualTo(GuardCause.RESTARTED);
		assertThat(decision.sinceNanos()).isEqualTo(NOW - TimeUnit.SECONDS.toNanos(10));
	}

	@Test
	void aMarkerWithinASecondOfTheUptimeIsNotTakenForARestartWithData() {
		// uptime is whole seconds: a marker made at the start may look up to a second
		// older
		RestartDecision decision = judge(10, markerAged(10), false, null);
		assertThat(decision.cause()).isEqualTo(GuardCause.NEW_OR_FLUSHED);
	}

	@Test
	void aMarkerCreatedByThisCheckMeansANewOrFlushedNodeGuardedFromNow() {
		RestartDecision decision = judge(3600, markerAged(0), true, null);
		assertThat(decision.cause()).isEqualTo(GuardCause.NEW_OR_FLUSHED);
		assertThat(decision.sinceNanos()).isEqualTo(NOW);
	}

	@Test
	void aYoungMarkerIsGuardedFromItsCreation() {
		RestartDecision decision = judge(3600, markerAged(12), false, null);
		assertThat(decision.cause()).isEqualTo(GuardCause.NEW_OR_FLUSHED);
		assertThat(decision.sinceNanos()).isEqualTo(NOW - TimeUnit.SECONDS.toNanos(12));
	}

	@Test
	void aYoungMarkerOnANodeUpForLessTimeIsGuardedFromTheStart() {
		RestartDecision decision = judge(5, markerAged(5), false, null);
		assertThat(decision.cause()).isEqualTo(GuardCause.NEW_OR_FLUSHED);
		assertThat(decision.sinceNanos()).isEqualTo(NOW - TimeUnit.SECONDS.toNanos(5));
	}

	@Test
	void aKnownMarkerReplacedMeansLostDataGuardedFromNow() {
		RestartDecision decision = judge(3600, markerAged(3000), false, markerAged(4000));
		assertThat(decision.cause()).isEqualTo(GuardCause.MARKER_CHANGED);
		assertThat(decision.sinceNanos()).isEqualTo(NOW);
	}

	@Test
	void theKnownMarkerSeenAgainCounts() {
		String marker = markerAged(3000);
		assertThat(judge(3600, marker, false, marker).cause()).isNull();
	}

	@Test
	void aRestartWithDataIsToldBeforeAReplacedMarker() {
		RestartDecision decision = judge(10, markerAged(3000), false, markerAged(4000));
		assertThat(decision.cause()).isEqualTo(GuardCause.RESTARTED);
	}

	@Test
	void anUnreadableMarkerCountsAsCreatedJustNow() {
		RestartDecision decision = judge(3600, "id:not-a-time", false, null);
		assertThat(decision.cause()).isEqualTo(GuardCause.NEW_OR_FLUSHED);
		assertThat(decision.sinceNanos()).isEqualTo(NOW);
		assertThat(decision.floorMicros()).isEqualTo(NODE_MICROS + GUARD_MICROS);
	}

	@Test
	void theFloorIsTheLaterOfStartAndMarkerCreationPlusTheGuard() {
		long uptime = 3600;
		long startMicros = NODE_MICROS - TimeUnit.SECONDS.toMicros(uptime);
		// marker older than the start (data kept across the restart): the start counts
		assertThat(judge(uptime, markerAged(5000), false, null).floorMicros()).isEqualTo(startMicros + GUARD_MICROS);
		// marker younger than the start (flushed since): its creation counts
		assertThat(judge(uptime, markerAged(100), false, null).floorMicros())
			.isEqualTo(NODE_MICROS - TimeUnit.SECONDS.toMicros(100) + GUARD_MICROS);
	}

	@Test
	void theFloorIsNeverAboveTheNodesClockPlusTheGuardEvenForAMarkerFromTheFuture() {
		// a marker written by a node whose clock was later set back
		String future = "id:" + (NODE_MICROS / 1000 + TimeUnit.HOURS.toMillis(1));
		assertThat(judge(3600, future, false, null).floorMicros()).isEqualTo(NODE_MICROS + GUARD_MICROS);
	}

	@Test
	void everyTokenHandedOutBeforeTheNodeCameBackIsBelowItsFloor() {
		// a token handed out at t is at most t + skew; the node came back at its start,
		// the guard time after which it counts again: with guard > 2 * skew the floor,
		// read on a node clock up to skew behind, is above that token
		long skewMicros = GUARD_MICROS / 2 - 1;
		long uptime = TimeUnit.NANOSECONDS.toSeconds(GUARD);
		long cameBackMicros = NODE_MICROS - TimeUnit.SECONDS.toMicros(uptime);
		long latestEarlierToken = cameBackMicros + skewMicros;
		long nodeClockBehind = NODE_MICROS - skewMicros;
		RestartDecision decision = RestartDecision.judge(NOW, uptime, markerAgedOn(nodeClockBehind, 5000), false, null,
				nodeClockBehind, GUARD);
		assertThat(decision.floorMicros()).isGreaterThan(latestEarlierToken);
	}

	private static RestartDecision judge(long uptimeSeconds, String marker, boolean created, String known) {
		return RestartDecision.judge(NOW, uptimeSeconds, marker, created, known, NODE_MICROS, GUARD);
	}

	private static String markerAged(long seconds) {
		return markerAgedOn(NODE_MICROS, seconds);
	}

	private static String markerAgedOn(long nodeMicros, long seconds) {
		return "id" + seconds + ":" + (nodeMicros / 1000 - TimeUnit.SECONDS.toMillis(seconds));
	}

}
