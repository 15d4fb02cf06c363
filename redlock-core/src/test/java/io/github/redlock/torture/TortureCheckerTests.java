package io.github.redlock.torture;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redlock.torture.TortureChecker.Report;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The torture checker on small hand-made histories: each kind of violation in one that
 * has it, and the cases next to it that are none. Times are in milliseconds here, written
 * as the nanoseconds the clients record.
 */
class TortureCheckerTests {

	private final List<String> sections = new ArrayList<>();

	private final List<String> writes = new ArrayList<>();

	private final Map<String, List<String>> logs = new LinkedHashMap<>();

	private final List<String> errors = new ArrayList<>();

	private final List<String> stalls = new ArrayList<>();

	@Test
	void exclusiveSectionsOneAfterTheOtherAreNoViolation() {
		section("k0", "c0", 10, 100, 200, 1100, 90, "X");
		// begins the moment the first ended
		section("k0", "c1", 11, 200, 300, 1200, 150, "X");
		Report report = check();
		assertThat(report.violations()).isZero();
		assertThat(report.validSections).isEqualTo(2);
	}

	@Test
	void exclusiveSectionsThatOverlapAreFound() {
		section("k0", "c0", 10, 100, 300, 1100, 90, "X");
		section("k0", "c1", 11, 250, 400, 1250, 95, "X");
		Report report = check();
		assertThat(report.overlaps).singleElement().asString().contains("token 11 began 50000us before token 10");
		assertThat(report.violations()).isEqualTo(1);
	}

	@Test
	void exclusiveSectionsThatBeganAtTheSameMomentOverlap() {
		section("k0", "c0", 10, 100, 200, 1100, 90, "X");
		section("k0", "c1", 11, 100, 200, 1100, 90, "X");
		assertThat(check().overlaps).hasSize(1);
	}

	@Test
	void aSectionPastItsLeaseOverlapsNothingAfterTheLeaseEnded() {
		// the first ran on past its lease (safe end 150): the second began after that
		section("k0", "c0", 10, 100, 400, 150, 90, "X");
		section("k0", "c1", 11, 200, 300, 1200, 120, "X");
		assertThat(check().violations()).isZero();
	}

	@Test
	void aWriterBesideAReaderIsFound() {
		section("r0", "c0", 10, 100, 300, 1100, 90, "R");
		section("r0", "c1", 11, 200, 400, 1200, 95, "W");
		assertThat(check().writerOverlaps).singleElement().asString().contains("W token 11 overlapped R token 10");
	}

	@Test
	void anExclusiveHolderOfAReadWriteKeyBesideAReaderIsFound() {
		section("r0", "c0", 10, 100, 300, 1100, 90, "R");
		section("r0", "c1", 11, 200, 400, 1200, 95, "X");
		assertThat(check().writerOverlaps).singleElement().asString().contains("X token 11 overlapped R token 10");
	}

	@Test
	void readersThatHoldAtOnceMayShareAToken() {
		section("r0", "c0", 10, 100, 300, 1100, 90, "R");
		section("r0", "c1", 10, 150, 350, 1150, 95, "R");
		assertThat(check().violations()).isZero();
	}

	@Test
	void aWriterThatSharesAReadersTokenIsFound() {
		section("r0", "c0", 10, 100, 200, 1100, 90, "R");
		section("r0", "c1", 10, 300, 400, 1300, 95, "W");
		Report report = check();
		assertThat(report.sharedTokens).singleElement().asString().startsWith("r0 token 10");
		assertThat(report.writerOverlaps).isEmpty();
	}

	@Test
	void moreHoldersThanPermitsAreFound() {
		section("s0", "c0", 10, 100, 400, 1100, 90, "P");
		section("s0", "c1", 11, 150, 300, 1150, 95, "P");
		section("s0", "c2", 12, 200, 250, 1200, 96, "P");
		// arrives the moment c1 leaves: two, not three
		section("s0", "c3", 13, 300, 400, 1300, 97, "P");
		Report report = check();
		assertThat(report.permitOverruns).singleElement()
			.asString()
			.isEqualTo("s0: 3 holders of 2 permits at 200000000");
		assertThat(report.mostPermitHolders).isEqualTo(3);
	}

	@Test
	void permitsHeldAtOnceMayShareAToken() {
		section("s0", "c0", 10, 100, 400, 1100, 90, "P");
		section("s0", "c1", 10, 150, 400, 1150, 95, "P");
		assertThat(check().violations()).isZero();
	}

	@Test
	void twoExclusiveSectionsWithOneTokenAreFound() {
		section("k0", "c0", 10, 100, 200, 1100, 90, "X");
		section("k0", "c1", 10, 300, 400, 1300, 250, "X");
		Report report = check();
		assertThat(report.sharedTokens).hasSize(1);
		// it also asked after the other held: its token is not above
		assertThat(report.tokenRegressions).hasSize(1);
	}

	@Test
	void aTokenBelowOneThatHeldBeforeItAskedIsFound() {
		section("k0", "c0", 10, 100, 200, 1100, 90, "X");
		section("k0", "c1", 9, 300, 400, 1300, 250, "X");
		assertThat(check().tokenRegressions).singleElement()
			.asString()
			.startsWith("k0: token 9 asked for 150000us after token 10 held");
	}

	@Test
	void aLowerTokenAskedForBeforeTheOtherHeldIsNoRegression() {
		// asked before token 10 held, got in after it: the two attempts raced
		section("k0", "c0", 10, 100, 200, 1100, 90, "X");
		section("k0", "c1", 9, 300, 400, 1300, 95, "X");
		assertThat(check().violations()).isZero();
	}

	@Test
	void aWriteTheStoreAcceptedOutOfOrderIsFound() {
		log("k0", "op1", 11, true, "a");
		log("k0", "op2", 10, true, "b");
		Report report = check();
		assertThat(report.fencingViolations).singleElement()
			.asString()
			.isEqualTo("k0: accepted token 10 of section b after the store saw token 11");
		assertThat(report.lateWritesAccepted).isEmpty();
	}

	@Test
	void aSectionWritingSeveralTimesWithItsTokenIsNoViolation() {
		log("k0", "op1", 10, true, "a");
		log("k0", "op2", 10, true, "a");
		log("k0", "op3", 11, true, "b");
		assertThat(check().violations()).isZero();
	}

	@Test
	void aLateWriteTheStoreAcceptedAfterANewerHolderIsFound() {
		log("k0", "op1", 11, true, "b");
		log("k0", "op2", 10, true, "a");
		write("op2", "k0", 10, true, true);
		Report report = check();
		assertThat(report.lateWritesAccepted).singleElement()
			.asString()
			.contains("accepted a write sent after its lease ended, token 10");
		assertThat(report.fencingViolations).isEmpty();
	}

	@Test
	void aLateWriteTheStoreRejectedIsCountedAndNoViolation() {
		log("k0", "op1", 11, true, "b");
		log("k0", "op2", 10, false, "a");
		write("op2", "k0", 10, true, false);
		// late, but no newer holder came first
		log("k0", "op3", 12, true, "c");
		write("op3", "k0", 12, true, true);
		Report report = check();
		assertThat(report.violations()).isZero();
		assertThat(report.lateWrites).isEqualTo(2);
		assertThat(report.lateRejected).isEqualTo(1);
		assertThat(report.lateUnopposed).isEqualTo(1);
		assertThat(report.staleRejected).isEqualTo(1);
	}

	@Test
	void aLeaseSpentBeforeItsSectionBeganIsFound() {
		section("k0", "c0", 10, 1400, 1500, 1400, 100, "X");
		Report report = check();
		assertThat(report.expiredLeases).singleElement().asString().contains("token 10 began with no validity left");
		assertThat(report.validSections).isZero();
	}

	@Test
	void aLeaseSpentWhileItsClientStoodStillIsNoViolation() {
		section("k0", "c0", 10, 1400, 1500, 1400, 100, "X");
		// another client's stall explains nothing, nor a short one of its own, nor one
		// before it asked
		this.stalls.add("c1 " + millis(150) + " " + millis(1150));
		this.stalls.add("c0 " + millis(150) + " " + millis(300));
		this.stalls.add("c0 " + millis(0) + " " + millis(90));
		assertThat(check().expiredLeases).hasSize(1);
		this.stalls.add("c0 " + millis(900) + " " + millis(1150));
		Report report = check();
		assertThat(report.violations()).isZero();
		assertThat(report.expiredAfterStall).isEqualTo(1);
	}

	@Test
	void whatAWorkerThrewIsAViolation() {
		this.errors.add("c0 k0 torture-c0-0: java.lang.IllegalStateException: broken");
		assertThat(check().workerErrors).hasSize(1);
	}

	@Test
	void oneKeysHistoryKeepsOnlyThatKey() {
		section("k0", "c0", 10, 100, 300, 1100, 90, "X");
		section("k0", "c1", 11, 250, 400, 1250, 95, "X");
		section("k1", "c1", 11, 250, 400, 1250, 95, "X");
		log("k0", "op1", 11, true, "a");
		log("k1", "op2", 11, true, "b");
		write("op1", "k0", 11, false, true);
		write("op2", "k1", 11, false, true);
		this.errors.add("c0 k0 torture-c0-0: java.lang.IllegalStateException: broken");
		History k1 = history().forKey("k1");
		assertThat(k1.sections()).hasSize(1);
		assertThat(k1.storeLogs()).containsOnlyKeys("k1");
		assertThat(k1.writes()).hasSize(1);
		assertThat(k1.errors()).isEmpty();
		assertThat(TortureChecker.check(history().forKey("k0")).overlaps).hasSize(1);
	}

	private void section(String key, String client, long token, long start, long end, long safeEnd, long askedAt,
			String mode) {
		this.sections.add(key + " " + client + " " + token + " " + millis(start) + " " + millis(end) + " "
				+ millis(safeEnd) + " " + client + "-" + this.sections.size() + " " + millis(askedAt) + " " + mode);
	}

	private void log(String key, String op, long token, boolean accepted, String section) {
		this.logs.computeIfAbsent(key, (k) -> new ArrayList<>())
			.add(op + " " + token + " " + (accepted ? 1 : 0) + " " + section);
	}

	private void write(String op, String key, long token, boolean late, boolean accepted) {
		this.writes.add(op + " " + key + " " + token + " 0 " + (late ? 1 : 0) + " " + (accepted ? 1 : 0));
	}

	private static long millis(long millis) {
		return millis * 1_000_000;
	}

	private History history() {
		return History.of(this.sections, this.writes, this.logs, this.errors, this.stalls);
	}

	private Report check() {
		return TortureChecker.check(history());
	}

}
