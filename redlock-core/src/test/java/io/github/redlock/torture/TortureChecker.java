package io.github.redlock.torture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.stream.Collectors;

/**
 * The torture run's checker: reads what the clients and the store recorded (a
 * {@link History}) and lists every violation it finds, each kind in a list of its own
 * ({@link Report}). Nothing here trusts the store's own rule: its decisions are checked
 * like the engine's. {@code TortureCheckerTests} gives each kind a hand-made history that
 * has it and one that does not.
 */
final class TortureChecker {

	/**
	 * How long a client must have stood still to have spent a lease between asking and
	 * beginning: a quarter of the torture's TTL.
	 */
	static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	private TortureChecker() {
	}

	/**
	 * Checks a history.
	 * @param history what the clients and the store recorded
	 * @return every violation found, and the figures of the run
	 */
	static Report check(History history) {
		Report report = new Report();
		Map<String, List<Section>> byKey = new TreeMap<>();
		Map<String, List<long[]>> stalls = stallsByClient(history.stalls());
		for (String line : history.sections()) {
			Section section = Section.parse(line);
			byKey.computeIfAbsent(section.key(), (key) -> new ArrayList<>()).add(section);
			report.sections++;
			if (section.expiredAtStart()) {
				checkExpired(section, stalls, report);
			}
			else {
				report.validSections++;
			}
		}
		for (Map.Entry<String, List<Section>> key : byKey.entrySet()) {
			List<Section> sections = key.getValue();
			sections.sort(Comparator.comparingLong(Section::start));
			// what a key is follows from how its sections took it
			Set<String> modes = sections.stream().map(Section::mode).collect(Collectors.toSet());
			if (modes.contains("P")) {
				report.permitSections += sections.size();
				checkPermits(key.getKey(), sections, report);
				checkTokens(key.getKey(), sections, report, (one, other) -> true);
			}
			else if (modes.contains("R") || modes.contains("W")) {
				report.readWriteSections += sections.size();
				checkWriters(key.getKey(), sections, report);
				checkTokens(key.getKey(), sections, report,
						(one, other) -> one.mode().equals("R") && other.mode().equals("R"));
			}
			else {
				checkOverlaps(key.getKey(), sections, report);
				checkTokens(key.getKey(), sections, report, (one, other) -> false);
			}
		}
		Map<String, Boolean> late = new HashMap<>();
		for (String line : history.writes()) {
			String[] f = line.split(" ");
			late.put(f[0], f[4].equals("1"));
		}
		for (Map.Entry<String, List<String>> log : history.storeLogs().entrySet()) {
			checkStore(log.getKey(), log.getValue(), late, report);
		}
		report.workerErrors.addAll(history.errors());
		return report;
	}

	private static Map<String, List<long[]>> stallsByClient(List<String> lines) {
		Map<String, List<long[]>> stalls = new HashMap<>();
		for (String line : lines) {
			String[] f = line.split(" ");
			stalls.computeIfAbsent(f[0], (client) -> new ArrayList<>())
				.add(new long[] { Long.parseLong(f[1]), Long.parseLong(f[2]) });
		}
		return stalls;
	}

	// A section whose lease had no validity left when it began held nothing: the
	// exclusion checks skip it. The engine grants a lease with most of its TTL left (an
	// attempt lasts about a node timeout), so one spent by the time its thread ran is
	// the engine's doing, unless its client stood still (SIGSTOP, a long safepoint)
	// between asking and beginning, for a quarter of a TTL or more: its stall watcher
	// saw the JVM stop then.
	private static void checkExpired(Section section, Map<String, List<long[]>> stalls, Report report) {
		for (long[] stall : stalls.getOrDefault(section.client(), List.of())) {
			if (stall[0] < section.start() && stall[1] > section.askedAt() && stall[1] - stall[0] >= STALL_NANOS) {
				report.expiredAfterStall++;
				return;
			}
		}
		report.expiredLeases.add(section.key() + ": token " + section.token()
				+ " began with no validity left, and its client did not stand still since it asked {" + section.line()
				+ "}");
	}

	// No two sections on a key overlap while both leases were valid.
	private static void checkOverlaps(String key, List<Section> byStart, Report report) {
		Section latest = null;
		for (Section section : byStart) {
			if (section.expiredAtStart()) {
				continue;
			}
			if (latest != null && section.start() < latest.safeEnd()) {
				report.overlaps.add(key + ": token " + section.token() + " began "
						+ (latest.safeEnd() - section.start()) / 1000 + "us before token " + latest.token()
						+ "'s lease ended {newer: " + section.line() + " | older: " + latest.line() + "}");
			}
			if (latest == null || section.safeEnd() > latest.safeEnd()) {
				latest = section;
			}
		}
	}

	// No write or exclusive section overlaps another section of its key while both
	// leases were valid (the exclusive lock and the write lock of a key are one lock).
	private static void checkWriters(String key, List<Section> byStart, Report report) {
		for (Section writer : byStart) {
			if (writer.mode().equals("R") || writer.expiredAtStart()) {
				continue;
			}
			for (Section other : byStart) {
				if (other == writer || other.expiredAtStart()) {
					continue;
				}
				if (other.start() >= writer.safeEnd()) {
					break;
				}
				if (other.safeEnd() > writer.start()) {
					report.writerOverlaps.add(key + ": " + writer.mode() + " token " + writer.token() + " overlapped "
							+ other.mode() + " token " + other.token() + " by "
							+ (Math.min(writer.safeEnd(), other.safeEnd()) - Math.max(writer.start(), other.start()))
									/ 1000
							+ "us {writer: " + writer.line() + " | other: " + other.line() + "}");
				}
			}
		}
	}

	// Never more permit sections valid at once than permits.
	private static void checkPermits(String key, List<Section> byStart, Report report) {
		List<long[]> events = new ArrayList<>();
		for (Section section : byStart) {
			if (!section.expiredAtStart()) {
				events.add(new long[] { section.start(), 1 });
				events.add(new long[] { section.safeEnd(), -1 });
			}
		}
		// an end at the same moment as a start comes first
		events.sort(Comparator.<long[]>comparingLong((event) -> event[0]).thenComparingLong((event) -> event[1]));
		int holders = 0;
		for (long[] event : events) {
			holders += (int) event[1];
			report.mostPermitHolders = Math.max(report.mostPermitHolders, holders);
			if (holders > TortureStore.PERMITS) {
				report.permitOverruns
					.add(key + ": " + holders + " holders of " + TortureStore.PERMITS + " permits at " + event[0]);
			}
		}
	}

	// Tokens strictly increase for successive holders: no two sections share one (unless
	// both may, as two readers or two permits that held at once), and a section that
	// began asking after another held has a higher token.
	private static void checkTokens(String key, List<Section> byStart, Report report,
			BiPredicate<Section, Section> mayShare) {
		Map<Long, Section> byToken = new HashMap<>();
		long[] starts = new long[byStart.size()];
		Section[] highestSoFar = new Section[byStart.size()];
		for (int i = 0; i < byStart.size(); i++) {
			Section section = byStart.get(i);
			Section other = byToken.putIfAbsent(section.token(), section);
			if (other != null && !mayShare.test(other, section)) {
				report.sharedTokens
					.add(key + " token " + section.token() + " {" + other.line() + " | " + section.line() + "}");
			}
			starts[i] = section.start();
			highestSoFar[i] = (i > 0 && highestSoFar[i - 1].token() >= section.token()) ? highestSoFar[i - 1] : section;
		}
		for (Section section : byStart) {
			// the sections that held before this one began asking
			int before = Arrays.binarySearch(starts, section.askedAt());
			before = (before >= 0) ? before : -before - 1;
			while (before > 0 && starts[before - 1] >= section.askedAt()) {
				before--;
			}
			if (before > 0 && highestSoFar[before - 1].token() >= section.token()) {
				Section earlier = highestSoFar[before - 1];
				report.tokenRegressions.add(key + ": token " + section.token() + " asked for "
						+ (section.askedAt() - earlier.start()) / 1000 + "us after token " + earlier.token() + " held {"
						+ earlier.line() + " | " + section.line() + "}");
			}
		}
	}

	// The store's log of a key, in arrival order: no write is accepted unless its token
	// is above that of every other section the store saw before it. Writes sent after
	// their lease ended (as a paused client sends them) are told apart: a fenced store
	// rejects them whenever a newer holder came first.
	private static void checkStore(String key, List<String> log, Map<String, Boolean> late, Report report) {
		Map<String, Long> highestBySection = new HashMap<>();
		String first = null;
		long firstToken = 0;
		long secondToken = 0;
		for (String entry : log) {
			String[] f = entry.split(" ");
			long token = Long.parseLong(f[1]);
			boolean accepted = f[2].equals("1");
			String section = f[3];
			boolean sentLate = late.getOrDefault(f[0], false);
			long highestOther = section.equals(first) ? secondToken : firstToken;
			report.operations++;
			boolean newerHolderCame = token <= highestOther;
			if (accepted && newerHolderCame) {
				(sentLate ? report.lateWritesAccepted : report.fencingViolations)
					.add(key + ": accepted " + (sentLate ? "a write sent after its lease ended, " : "") + "token "
							+ token + " of section " + section + " after the store saw token " + highestOther);
			}
			if (!accepted) {
				report.staleRejected++;
			}
			if (sentLate) {
				report.lateWrites++;
				if (!newerHolderCame) {
					report.lateUnopposed++;
				}
				else if (!accepted) {
					report.lateRejected++;
				}
			}
			long highest = highestBySection.merge(section, token, Math::max);
			if (section.equals(first)) {
				firstToken = highest;
			}
			else if (highest > firstToken) {
				secondToken = firstToken;
				first = section;
				firstToken = highest;
			}
			else if (highest > secondToken) {
				secondToken = highest;
			}
		}
	}

	/**
	 * One critical section as its client recorded it; its lease's validity ends at
	 * {@code safeEnd}, or when the section ended if that was sooner.
	 */
	record Section(String key, String client, long token, long start, long safeEnd, String id, long askedAt,
			String mode, String line) {

		static Section parse(String line) {
			String[] f = line.split(" ");
			return new Section(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3]),
					Math.min(Long.parseLong(f[4]), Long.parseLong(f[5])), f[6], Long.parseLong(f[7]),
					(f.length > 8) ? f[8] : "X", line);
		}

		boolean expiredAtStart() {
			return this.safeEnd <= this.start;
		}

	}

	/**
	 * Every violation found, a list per kind, and the figures of the run. The run itself
	 * adds what it saw outside the history: clients that failed, keys that could not be
	 * taken again, and lock keys left on the nodes.
	 */
	static final class Report {

		final List<String> overlaps = new ArrayList<>();

		final List<String> writerOverlaps = new ArrayList<>();

		final List<String> permitOverruns = new ArrayList<>();

		final List<String> sharedTokens = new ArrayList<>();

		final List<String> tokenRegressions = new ArrayList<>();

		final List<String> fencingViolations = new ArrayList<>();

		final List<String> lateWritesAccepted = new ArrayList<>();

		final List<String> expiredLeases = new ArrayList<>();

		final List<String> workerErrors = new ArrayList<>();

		final List<String> clientFailures = new ArrayList<>();

		final List<String> deadlocks = new ArrayList<>();

		final List<String> leftoverKeys = new ArrayList<>();

		int sections;

		int validSections;

		int readWriteSections;

		int permitSections;

		int mostPermitHolders;

		int operations;

		int staleRejected;

		int lateWrites;

		int lateRejected;

		int lateUnopposed;

		int expiredAfterStall;

		/**
		 * Returns each kind's violations, by a name for messages.
		 */
		Map<String, List<String>> byKind() {
			Map<String, List<String>> kinds = new LinkedHashMap<>();
			kinds.put("overlapping sections", this.overlaps);
			kinds.put("writers overlapping a holder", this.writerOverlaps);
			kinds.put("permit overruns", this.permitOverruns);
			kinds.put("shared tokens", this.sharedTokens);
			kinds.put("token regressions", this.tokenRegressions);
			kinds.put("writes accepted with a token not above an earlier section's", this.fencingViolations);
			kinds.put("late writes accepted after a newer holder", this.lateWritesAccepted);
			kinds.put("leases with no validity left when their section began", this.expiredLeases);
			kinds.put("worker errors", this.workerErrors);
			kinds.put("client failures", this.clientFailures);
			kinds.put("keys that could not be taken again", this.deadlocks);
			kinds.put("lock keys left on the nodes", this.leftoverKeys);
			return kinds;
		}

		int violations() {
			return byKind().values().stream().mapToInt(List::size).sum();
		}

		String summary() {
			Map<String, List<String>> kinds = byKind();
			int violations = violations();
			return "  operations (fenced writes): " + this.operations + "\n  critical sections: " + this.sections + " ("
					+ this.validSections + " began with validity left; of the others, " + this.expiredAfterStall
					+ " after their client stood still)" + "\n  violations: " + violations + " ("
					+ kinds.entrySet()
						.stream()
						.map((kind) -> kind.getKey() + " " + kind.getValue().size())
						.collect(Collectors.joining(", "))
					+ ")"
					+ ((violations > 0) ? "\n    first of each:" + kinds.values()
						.stream()
						.filter((list) -> !list.isEmpty())
						.map((list) -> "\n    " + list.get(0))
						.collect(Collectors.joining()) : "")
					+ "\n  read-write sections: " + this.readWriteSections + ", permit sections: " + this.permitSections
					+ " (most holders at once: " + this.mostPermitHolders + " of " + TortureStore.PERMITS + ")"
					+ "\n  stale writes rejected by the store: " + this.staleRejected
					+ "\n  writes sent after their lease expired: " + this.lateWrites
					+ " (rejected after a newer holder: " + this.lateRejected
					+ ", accepted with no newer holder in between: " + this.lateUnopposed + ")";
		}

	}

}
