package io.github.redlock.torture;

import java.util.List;
import java.util.function.Function;

import io.github.redlock.torture.TortureChecker.Report;

/**
 * The broken-engine round's variants: each breaks the engine, the store or the client in
 * one way, on a key of its own, so that one check of the {@link TortureChecker} (or of
 * the run's liveness checks) must find it. The client JVMs run every variant at once
 * ({@link TortureClient}); the round checks each key's history on its own.
 */
enum BrokenVariant {

	/** A lock counted as held once one node agreed: two holders at once. */
	QUORUM_OF_ONE("k-quorum-of-one", "X", "overlapping sections", (report) -> report.overlaps),

	/** The same for the read-write lock: a writer beside another holder. */
	WRITER_QUORUM_OF_ONE("r-quorum-of-one", "RWX", "writers overlapping a holder", (report) -> report.writerOverlaps),

	/** A semaphore of one permit more than the checker allows. */
	EXTRA_PERMIT("s-extra-permit", "P", "permit overruns", (report) -> report.permitOverruns),

	/**
	 * Every node's fencing counter set back to 0 before each acquisition, by a registry
	 * that sends 1 as the counter's start (and no floor): the start alone would lift a
	 * lost counter above the tokens before it.
	 */
	COUNTER_RESET("k-counter-reset", "X", "shared tokens", (report) -> report.sharedTokens),

	/**
	 * The nodes' floor and the counter's start taken out of the acquire script (each
	 * node's floor sent empty, the start sent as 1), while a quorum comes back from older
	 * snapshots: its old counters decide tokens again. Either alone would still lift
	 * them.
	 */
	NO_FLOOR("k-no-floor", "X", "token regressions", (report) -> report.tokenRegressions),

	/** A store that accepts every write, behind a quorum of one. */
	TRUSTING_STORE("k-trusting-store", "X", "writes accepted with a token not above an earlier section's",
			(report) -> report.fencingViolations),

	/**
	 * A store that accepts every write, and a holder that stands still past its lease
	 * before it writes, until a newer holder wrote.
	 */
	LATE_WRITER("k-late-writer", "X", "late writes accepted after a newer holder",
			(report) -> report.lateWritesAccepted),

	/** An engine that returns leases with no validity left. */
	EXPIRED_LEASES("k-expired-leases", "X", "leases with no validity left when their section began",
			(report) -> report.expiredLeases),

	/** An engine that throws something other than a refusal now and then. */
	THROWING("k-throwing", "X", "worker errors", (report) -> report.workerErrors),

	/** A lock key left on every node with no expiry: nobody takes the key again. */
	STUCK_KEY("k-stuck-key", "X", "keys that could not be taken again", (report) -> report.deadlocks),

	/**
	 * A lock key left on one node with no expiry: the key is taken, the node never
	 * cleared.
	 */
	LEFTOVER_KEY("k-leftover-key", "X", "lock keys left on the nodes", (report) -> report.leftoverKeys);

	private final String key;

	private final String modes;

	private final String check;

	private final Function<Report, List<String>> found;

	BrokenVariant(String key, String modes, String check, Function<Report, List<String>> found) {
		this.key = key;
		this.modes = modes;
		this.check = check;
		this.found = found;
	}

	/** The key this variant's workers contend on. */
	String key() {
		return this.key;
	}

	/**
	 * The modes its workers take the key in: {@code X}, {@code R}, {@code W}, {@code P}.
	 */
	String modes() {
		return this.modes;
	}

	/** The check that must find it, as the report names it. */
	String check() {
		return this.check;
	}

	/** What that check found in a report of this variant's key. */
	List<String> found(Report report) {
		return this.found.apply(report);
	}

	/** Whether the registry this variant's workers use counts one node as a quorum. */
	boolean quorumOfOne() {
		return this == QUORUM_OF_ONE || this == WRITER_QUORUM_OF_ONE || this == TRUSTING_STORE;
	}

	/**
	 * Whether its leases are kept extended while held, as the torture's are: not those
	 * that must lapse (a late writer's, a spent lease) or be left behind.
	 */
	boolean keptExtended() {
		return this != LATE_WRITER && this != EXPIRED_LEASES && this != STUCK_KEY && this != LEFTOVER_KEY;
	}

	/**
	 * Whether its workers use the registry without the floor and the counter's start
	 * ({@code BrokenEngines.floorAndStartRemoved}).
	 */
	boolean withoutFloorAndStart() {
		return this == NO_FLOOR || this == COUNTER_RESET;
	}

	/** The store's mode for this variant's writes. */
	String storeMode() {
		return (this == TRUSTING_STORE || this == LATE_WRITER) ? TortureStore.TRUSTING : TortureStore.FENCED;
	}

}
