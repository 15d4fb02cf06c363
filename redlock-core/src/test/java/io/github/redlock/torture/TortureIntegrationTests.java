package io.github.redlock.torture;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redlock.Lease;
import io.github.redlock.embedded.FleetProxy;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The torture run: client JVMs contend on a few keys while a nemesis kills, restarts,
 * pauses and slows nodes, crashes one node or a quorum back to older snapshots,
 * black-holes a node, pauses the clients themselves past their TTL, and partitions and
 * delays the network between each client and the nodes ({@link Nemesis}). A checker then
 * looks for two critical sections that overlapped while both leases were valid, two
 * sections that shared a token, a section whose token is not above one that held before
 * it began asking, a write the store accepted with a token not above an earlier
 * section's, deadlocks and leftover lock keys. The same run has clients take the read and
 * write locks of one key and permits of a semaphore: the checker also looks for a writer
 * that overlapped any other holder of its key, more permit holders at once than permits,
 * and a read, write or permit section whose token is not above every section of its key
 * that held before it began asking (readers that hold at once, and permits, may share a
 * token; a writer shares none). {@link #theCheckerFindsWhatABrokenEngineBreaks} shows
 * that each check fails when it should.
 * <p>
 * CI size by default (about a minute of faults). Long mode:
 * {@code -Dredlock.torture.duration=PT10M}; replay a schedule with
 * {@code -Dredlock.torture.seed=<seed>}.
 */
class TortureIntegrationTests {

	private static final Duration DURATION = Duration.parse(System.getProperty("redlock.torture.duration", "PT60S"));

	private static final long SEED = Long.getLong("redlock.torture.seed", System.nanoTime());

	private static final int CLIENTS = 4;

	private static final int THREADS = 3;

	private static final int KEYS = 3;

	private static final Duration TTL = Duration.ofSeconds(1);

	private static final Duration MAX_TTL = Duration.ofSeconds(2);

	@Test
	void mutualExclusionAndFencingHoldUnderFaults(@TempDir Path directory) throws Exception {
		System.out.println("torture: seed " + SEED + ", " + DURATION.toSeconds() + "s of faults");
		Run run = run(directory, DURATION, true, TortureStore.FENCED, "none");
		System.out.println(run.summary());
		if (run.report.violations() > 0) {
			// keep the clients' engine logs for the post-mortem
			Path kept = Path.of("target", "torture-logs-" + SEED);
			Files.createDirectories(kept);
			try (var logs = Files.list(directory)) {
				for (Path log : logs.filter((f) -> f.getFileName().toString().endsWith(".log")).toList()) {
					Files.copy(log, kept.resolve(log.getFileName()));
				}
			}
			System.out.println("client logs kept in " + kept.toAbsolutePath());
		}
		Report report = run.report;
		assertThat(report.overlaps).as("overlapping critical sections").isEmpty();
		assertThat(report.fencingViolations).as("writes accepted with a token not above an earlier section's")
			.isEmpty();
		assertThat(report.sharedTokens).as("tokens shared by two sections").isEmpty();
		assertThat(report.tokenRegressions).as("sections whose token is not above a section that held before")
			.isEmpty();
		assertThat(report.writerOverlaps).as("writers overlapping another holder of their key").isEmpty();
		assertThat(report.permitOverruns).as("more permit holders at once than permits").isEmpty();
		assertThat(report.sections).isGreaterThan(100);
		assertThat(report.readWriteSections).isGreaterThan(10);
		assertThat(report.permitSections).isGreaterThan(10);
		assertThat(run.faults.values().stream().mapToInt(Number::intValue).sum()).isGreaterThan(20);
		assertThat(run.faults.keySet()).as("faults injected").anyMatch((fault) -> fault.startsWith("partition"));
	}

	/**
	 * A checker that cannot fail proves nothing: with an engine broken on purpose (a
	 * quorum of one, fencing counters reset before every acquisition, and clients that
	 * ask the semaphore for one permit more than the checker allows) and a store that
	 * trusts every write, each of the six checks must find violations. The clients run
	 * until they have recorded 300 sections (at most a minute), so that a loaded machine
	 * that starts them slowly still gives the checker something to judge.
	 * <p>
	 * The checker also finds the engine fault the stale-snapshot restores are there for:
	 * with the node floor taken out of the acquire script, a run of
	 * {@link #mutualExclusionAndFencingHoldUnderFaults} found 9 violations (8 token
	 * regressions, 1 shared token) after its two quorum restores.
	 */
	@Test
	void theCheckerFindsWhatABrokenEngineBreaks(@TempDir Path directory) throws Exception {
		Run run = run(directory, Duration.ofSeconds(60), false, TortureStore.TRUSTING, "broken");
		System.out.println("broken engine, trusting store: " + run.summary());
		Report report = run.report;
		assertThat(report.overlaps).as("overlapping critical sections").isNotEmpty();
		assertThat(report.sharedTokens).as("tokens shared by two sections").isNotEmpty();
		assertThat(report.tokenRegressions).as("sections whose token is not above a section that held before")
			.isNotEmpty();
		assertThat(report.fencingViolations).as("writes accepted with a token not above an earlier section's")
			.isNotEmpty();
		assertThat(report.writerOverlaps).as("writers overlapping another holder of their key").isNotEmpty();
		assertThat(report.permitOverruns).as("more permit holders at once than permits").isNotEmpty();
	}

	private static Run run(Path directory, Duration duration, boolean faults, String storeMode, String engine)
			throws Exception {
		List<Process> clients = new ArrayList<>();
		List<String> results = Collections.synchronizedList(new ArrayList<>());
		try (RedisFleet fleet = RedisFleet.start(5); RedisNode store = RedisNode.start("store")) {
			// an established fleet: up for longer than the maximum TTL
			Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
			Path stop = directory.resolve("stop");
			CountDownLatch ready = new CountDownLatch(CLIENTS);
			List<FleetProxy> networks = new ArrayList<>();
			for (int i = 0; i < CLIENTS; i++) {
				// each client reaches the nodes through proxies of its own, so that the
				// nemesis can partition one client from nodes another still reaches
				FleetProxy network = fleet.proxy("c" + i);
				networks.add(network);
				clients.add(startClient("c" + i, network.uris(), store, stop, ready, results, storeMode, engine));
			}
			assertThat(ready.await(2, TimeUnit.MINUTES)).as("clients ready").isTrue();
			Nemesis nemesis = new Nemesis(fleet, clients, networks, SEED, KEYS, TTL, MAX_TTL);
			if (faults) {
				nemesis.run(duration);
				// the faults have stopped; let restarted nodes through their guard
				Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
			}
			else {
				// until the clients have recorded enough sections to judge, however
				// slowly
				// a loaded machine lets them start
				long deadline = System.nanoTime() + duration.toNanos();
				while (System.nanoTime() < deadline && (Long) store.call("LLEN", TortureStore.SECTIONS) < 300) {
					Thread.sleep(200);
				}
			}
			Files.createFile(stop);
			for (Process client : clients) {
				assertThat(client.waitFor(2, TimeUnit.MINUTES)).as("client exits").isTrue();
				assertThat(client.exitValue()).isZero();
			}
			if (faults) {
				checkLiveness(fleet);
			}
			return new Run(check(store), nemesis.faults(), results);
		}
		finally {
			clients.forEach(Process::destroyForcibly);
		}
	}

	private static Process startClient(String id, List<String> nodes, RedisNode store, Path stop, CountDownLatch ready,
			List<String> results, String storeMode, String engine) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), TortureClient.class.getName(), id, String.join(",", nodes),
				store.uri(), String.valueOf(KEYS), String.valueOf(THREADS), String.valueOf(TTL.toMillis()),
				String.valueOf(MAX_TTL.toMillis()), stop.toString(), String.valueOf(SEED + id.hashCode()), storeMode,
				engine)
			.redirectErrorStream(true)
			.start();
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = lines.readLine()) != null) {
					if (line.startsWith("READY")) {
						ready.countDown();
					}
					else if (line.startsWith("RESULT")) {
						results.add(line.substring("RESULT ".length()));
					}
				}
			}
			catch (Exception ex) {
				// the process ended
			}
		}, "torture-output-" + id);
		reader.setDaemon(true);
		reader.start();
		return process;
	}

	private static void checkLiveness(RedisFleet fleet) throws Exception {
		// no deadlock: every key can be acquired again now that the faults have stopped
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.defaultTtl(TTL)
			.maxTtl(MAX_TTL)
			.build()
			.start()) {
			for (int k = 0; k < KEYS; k++) {
				try (Lease lease = registry.acquire("k" + k, TTL, Duration.ofSeconds(10))) {
					assertThat(lease.isHeld()).isTrue();
				}
			}
			try (Lease lease = registry.acquireWrite(TortureStore.READ_WRITE_KEY, TTL, Duration.ofSeconds(10))) {
				assertThat(lease.isHeld()).isTrue();
			}
			List<Lease> permits = new ArrayList<>();
			for (int p = 0; p < TortureStore.PERMITS; p++) {
				permits.add(registry.semaphore(TortureStore.SEMAPHORE_KEY, TortureStore.PERMITS)
					.acquire(TTL, Duration.ofSeconds(10)));
			}
			permits.forEach(Lease::release);
		}
		// no lock key is left on any node once every client released (a paused client's
		// lost leases expire within their TTL)
		await().atMost(TTL.plusSeconds(5))
			.untilAsserted(() -> assertThat(fleet.nodes())
				.allSatisfy((node) -> assertThat(node.call("KEYS", "redlock:lock:*")).asList().isEmpty()));
	}

	/**
	 * Reads what the clients and the store recorded and looks for violations. Nothing
	 * here trusts the store's own rule: its decisions are checked like the engine's.
	 */
	static Report check(RedisNode store) {
		Report report = new Report();
		Map<String, List<Section>> byKey = new TreeMap<>();
		for (Object entry : (List<?>) store.call("LRANGE", TortureStore.SECTIONS, "0", "-1")) {
			Section section = Section.parse((String) entry);
			byKey.computeIfAbsent(section.key, (key) -> new ArrayList<>()).add(section);
			if (section.safeEnd <= section.start) {
				// the client froze between acquiring and starting, past its lease: it
				// never
				// held the lock while valid, and the fenced store rejects its writes
				report.expiredBeforeStart++;
			}
			report.sections++;
		}
		for (Map.Entry<String, List<Section>> key : byKey.entrySet()) {
			List<Section> sections = key.getValue();
			sections.sort(Comparator.comparingLong((Section section) -> section.start));
			if (key.getKey().equals(TortureStore.READ_WRITE_KEY)) {
				report.readWriteSections += sections.size();
				checkWriters(key.getKey(), sections, report);
				checkTokens(key.getKey(), sections, report,
						(one, other) -> one.mode.equals("R") && other.mode.equals("R"));
			}
			else if (key.getKey().equals(TortureStore.SEMAPHORE_KEY)) {
				report.permitSections += sections.size();
				checkPermits(key.getKey(), sections, report);
				checkTokens(key.getKey(), sections, report, (one, other) -> true);
			}
			else {
				checkOverlaps(key.getKey(), sections, report);
				checkTokens(key.getKey(), sections, report, (one, other) -> false);
			}
		}
		for (String key : byKey.keySet()) {
			checkStore(store, key, report);
		}
		return report;
	}

	// No two sections on a key overlap while both leases were valid.
	private static void checkOverlaps(String key, List<Section> byStart, Report report) {
		Section latest = null;
		for (Section section : byStart) {
			if (section.safeEnd <= section.start) {
				continue;
			}
			if (latest != null && section.start < latest.safeEnd) {
				report.overlaps.add(key + ": token " + section.token + " began "
						+ (latest.safeEnd - section.start) / 1000 + "us before token " + latest.token
						+ "'s lease ended {newer: " + section.line + " | older: " + latest.line + "}");
			}
			if (latest == null || section.safeEnd > latest.safeEnd) {
				latest = section;
			}
		}
	}

	// No write section overlaps another section of its key while both leases were valid.
	private static void checkWriters(String key, List<Section> byStart, Report report) {
		for (Section writer : byStart) {
			if (!writer.mode.equals("W") || writer.safeEnd <= writer.start) {
				continue;
			}
			for (Section other : byStart) {
				if (other == writer || other.safeEnd <= other.start) {
					continue;
				}
				if (other.start >= writer.safeEnd) {
					break;
				}
				if (other.safeEnd > writer.start) {
					report.writerOverlaps.add(key + ": writer token " + writer.token + " overlapped " + other.mode
							+ " token " + other.token + " by "
							+ (Math.min(writer.safeEnd, other.safeEnd) - Math.max(writer.start, other.start)) / 1000
							+ "us {writer: " + writer.line + " | other: " + other.line + "}");
				}
			}
		}
	}

	// Never more permit sections valid at once than permits.
	private static void checkPermits(String key, List<Section> byStart, Report report) {
		List<long[]> events = new ArrayList<>();
		for (Section section : byStart) {
			if (section.safeEnd > section.start) {
				events.add(new long[] { section.start, 1 });
				events.add(new long[] { section.safeEnd, -1 });
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
			java.util.function.BiPredicate<Section, Section> mayShare) {
		Map<Long, Section> byToken = new HashMap<>();
		long[] starts = new long[byStart.size()];
		Section[] highestSoFar = new Section[byStart.size()];
		for (int i = 0; i < byStart.size(); i++) {
			Section section = byStart.get(i);
			Section other = byToken.putIfAbsent(section.token, section);
			if (other != null && !mayShare.test(other, section)) {
				report.sharedTokens
					.add(key + " token " + section.token + " {" + other.line + " | " + section.line + "}");
			}
			starts[i] = section.start;
			highestSoFar[i] = (i > 0 && highestSoFar[i - 1].token >= section.token) ? highestSoFar[i - 1] : section;
		}
		for (Section section : byStart) {
			// the sections that held before this one began asking
			int before = Arrays.binarySearch(starts, section.askedAt);
			before = (before >= 0) ? before : -before - 1;
			while (before > 0 && starts[before - 1] >= section.askedAt) {
				before--;
			}
			if (before > 0 && highestSoFar[before - 1].token >= section.token) {
				Section earlier = highestSoFar[before - 1];
				report.tokenRegressions.add(key + ": token " + section.token + " asked for "
						+ (section.askedAt - earlier.start) / 1000 + "us after token " + earlier.token + " held {"
						+ earlier.line + " | " + section.line + "}");
			}
		}
	}

	// The store's log, in arrival order: no write is accepted unless its token is above
	// that of every other section the store saw before it; writes sent after their lease
	// expired are rejected whenever a newer holder came first.
	private static void checkStore(RedisNode store, String key, Report report) {
		Map<String, long[]> opPosition = new HashMap<>();
		Map<String, Long> highestBySection = new HashMap<>();
		String first = null;
		long firstToken = 0;
		long secondToken = 0;
		for (Object entry : (List<?>) store.call("LRANGE", TortureStore.logKey(key), "0", "-1")) {
			String[] f = ((String) entry).split(" ");
			long token = Long.parseLong(f[1]);
			boolean accepted = f[2].equals("1");
			String section = f[3];
			long highestOther = section.equals(first) ? secondToken : firstToken;
			report.operations++;
			if (accepted && token <= highestOther) {
				report.fencingViolations.add(key + ": accepted token " + token + " of section " + section
						+ " after the store saw token " + highestOther);
			}
			if (!accepted) {
				report.staleRejected++;
			}
			opPosition.put(f[0], new long[] { highestOther, accepted ? 1 : 0 });
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
		for (Object entry : (List<?>) store.call("LRANGE", TortureStore.WRITES, "0", "-1")) {
			String[] f = ((String) entry).split(" ");
			if (!f[1].equals(key) || !f[4].equals("1")) {
				continue;
			}
			report.lateWrites++;
			long token = Long.parseLong(f[2]);
			long[] position = opPosition.get(f[0]);
			boolean newerHolderCame = position[0] > token;
			boolean accepted = position[1] == 1;
			if (newerHolderCame && accepted) {
				report.fencingViolations
					.add(key + ": late write with token " + token + " accepted after a newer holder");
			}
			else if (newerHolderCame) {
				report.lateRejected++;
			}
			else {
				report.lateUnopposed++;
			}
		}
	}

	/**
	 * One critical section as its client recorded it.
	 */
	record Section(String key, long token, long start, long safeEnd, String id, long askedAt, String mode,
			String line) {

		static Section parse(String line) {
			String[] f = line.split(" ");
			return new Section(f[0], Long.parseLong(f[2]), Long.parseLong(f[3]),
					Math.min(Long.parseLong(f[4]), Long.parseLong(f[5])), f[6], Long.parseLong(f[7]),
					(f.length > 8) ? f[8] : "X", line);
		}

	}

	record Run(Report report, Map<String, ? extends Number> faults, List<String> clients) {

		String summary() {
			return this.report.summary(this.faults, this.clients);
		}

	}

	static final class Report {

		final List<String> overlaps = new ArrayList<>();

		final List<String> fencingViolations = new ArrayList<>();

		final List<String> sharedTokens = new ArrayList<>();

		final List<String> tokenRegressions = new ArrayList<>();

		final List<String> writerOverlaps = new ArrayList<>();

		final List<String> permitOverruns = new ArrayList<>();

		int sections;

		int readWriteSections;

		int permitSections;

		int mostPermitHolders;

		int operations;

		int staleRejected;

		int lateWrites;

		int lateRejected;

		int lateUnopposed;

		int expiredBeforeStart;

		int violations() {
			return this.overlaps.size() + this.fencingViolations.size() + this.sharedTokens.size()
					+ this.tokenRegressions.size() + this.writerOverlaps.size() + this.permitOverruns.size();
		}

		String summary(Map<String, ? extends Number> faults, List<String> clients) {
			int violations = violations();
			return "TORTURE SUMMARY seed=" + SEED + " clients=" + CLIENTS + "x" + THREADS + " keys=" + KEYS + " ttl="
					+ TTL.toMillis() + "ms\n  operations (fenced writes): " + this.operations
					+ "\n  acquisitions (critical sections): " + this.sections + " (" + this.expiredBeforeStart
					+ " found their lease already expired when they began)\n  clients: " + clients
					+ "\n  faults injected: "
					+ faults.entrySet()
						.stream()
						.map((fault) -> fault.getKey() + "=" + fault.getValue())
						.sorted()
						.collect(Collectors.joining(", "))
					+ "\n  violations: " + violations + " (overlapping sections " + this.overlaps.size()
					+ ", writes accepted with a token not above an earlier section's " + this.fencingViolations.size()
					+ ", shared tokens " + this.sharedTokens.size() + ", token regressions "
					+ this.tokenRegressions.size() + ", writers overlapping a holder " + this.writerOverlaps.size()
					+ ", permit overruns " + this.permitOverruns.size() + ")"
					+ (violations > 0 ? "\n    first of each: " + first(this.overlaps) + first(this.fencingViolations)
							+ first(this.sharedTokens) + first(this.tokenRegressions) + first(this.writerOverlaps)
							+ first(this.permitOverruns) : "")
					+ "\n  read-write sections: " + this.readWriteSections + ", permit sections: " + this.permitSections
					+ " (most holders at once: " + this.mostPermitHolders + " of " + TortureStore.PERMITS + ")"
					+ "\n  stale writes rejected by the store: " + this.staleRejected
					+ "\n  writes sent after their lease expired: " + this.lateWrites
					+ " (rejected after a newer holder: " + this.lateRejected
					+ ", accepted with no newer holder in between: " + this.lateUnopposed + ")";
		}

		private static String first(List<String> violations) {
			return violations.isEmpty() ? "" : "\n    " + violations.get(0);
		}

	}

}
