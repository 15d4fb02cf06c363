package io.github.redlock.torture;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The torture run: client JVMs contend on a few keys while a nemesis kills, restarts,
 * pauses and slows nodes and pauses the clients themselves past their TTL. A checker then
 * looks for two critical sections that overlapped while both leases were valid, stale
 * writes that the fenced store accepted, deadlocks and leftover lock keys.
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
		List<Process> clients = new ArrayList<>();
		List<String> results = Collections.synchronizedList(new ArrayList<>());
		try (RedisFleet fleet = RedisFleet.start(5); RedisNode store = RedisNode.start("store")) {
			// an established fleet: up for longer than the maximum TTL
			Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
			Path stop = directory.resolve("stop");
			CountDownLatch ready = new CountDownLatch(CLIENTS);
			for (int i = 0; i < CLIENTS; i++) {
				clients.add(startClient("c" + i, fleet, store, stop, ready, results));
			}
			assertThat(ready.await(2, TimeUnit.MINUTES)).as("clients ready").isTrue();
			Nemesis nemesis = new Nemesis(fleet, clients, SEED, TTL, MAX_TTL);
			nemesis.run(DURATION);
			// the faults have stopped; let restarted nodes through their guard
			Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
			Files.createFile(stop);
			for (Process client : clients) {
				assertThat(client.waitFor(2, TimeUnit.MINUTES)).as("client exits").isTrue();
				assertThat(client.exitValue()).isZero();
			}

			Report report = check(fleet, store);
			System.out.println(report.summary(nemesis.faults(), results));
			if (!report.overlaps.isEmpty()) {
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
			assertThat(report.overlaps).as("overlapping critical sections").isEmpty();
			assertThat(report.fencingViolations).as("stale writes accepted").isEmpty();
			assertThat(report.sharedTokens).as("tokens shared by two sections").isEmpty();
			assertThat(report.sections).isGreaterThan(100);
			assertThat(nemesis.faults().values().stream().mapToInt((count) -> count.get()).sum()).isGreaterThan(20);
		}
		finally {
			clients.forEach(Process::destroyForcibly);
		}
	}

	private static Process startClient(String id, RedisFleet fleet, RedisNode store, Path stop, CountDownLatch ready,
			List<String> results) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				TortureClient.class.getName(), id, String.join(",", fleet.uris()), store.uri(), String.valueOf(KEYS),
				String.valueOf(THREADS), String.valueOf(TTL.toMillis()), String.valueOf(MAX_TTL.toMillis()),
				stop.toString(), String.valueOf(SEED + id.hashCode()))
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

	private static Report check(RedisFleet fleet, RedisNode store) throws Exception {
		Report report = new Report();
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
		}
		// no lock key is left on any node once every client released (a paused client's
		// lost leases expire within their TTL)
		await().atMost(TTL.plusSeconds(5))
			.untilAsserted(() -> assertThat(fleet.nodes())
				.allSatisfy((node) -> assertThat(node.call("KEYS", "redlock:lock:*")).asList().isEmpty()));

		// no two sections on a key overlap while both leases were valid
		Map<String, List<long[]>> byKey = new TreeMap<>();
		Map<String, Set<Long>> tokens = new HashMap<>();
		Map<Long, String> lines = new HashMap<>();
		for (Object entry : (List<?>) store.call("LRANGE", TortureStore.SECTIONS, "0", "-1")) {
			String[] f = ((String) entry).split(" ");
			long token = Long.parseLong(f[2]);
			long start = Long.parseLong(f[3]);
			long safeEnd = Math.min(Long.parseLong(f[4]), Long.parseLong(f[5]));
			if (safeEnd > start) {
				byKey.computeIfAbsent(f[0], (key) -> new ArrayList<>()).add(new long[] { start, safeEnd, token });
			}
			else {
				// the client froze between acquiring and starting, past its lease: it
				// never
				// held the lock while valid, and the store rejects its writes
				report.expiredBeforeStart++;
			}
			lines.put(token, (String) entry);
			if (!tokens.computeIfAbsent(f[0], (key) -> new HashSet<>()).add(token)) {
				report.sharedTokens.add(f[0] + " token " + token);
			}
			report.sections++;
		}
		for (Map.Entry<String, List<long[]>> key : byKey.entrySet()) {
			List<long[]> sections = key.getValue();
			sections.sort(Comparator.comparingLong((long[] section) -> section[0]));
			long[] latest = null;
			for (long[] section : sections) {
				if (latest != null && section[0] < latest[1]) {
					report.overlaps
						.add(key.getKey() + ": token " + section[2] + " began " + (latest[1] - section[0]) / 1000
								+ "us before token " + latest[2] + "'s lease ended {newer: " + lines.get(section[2])
								+ " | older: " + lines.get(latest[2]) + "}");
				}
				if (latest == null || section[1] > latest[1]) {
					latest = section;
				}
			}
		}

		// the fenced store: no accepted write older than an earlier accepted one; late
		// writes of paused clients rejected whenever a newer holder had written
		Map<String, long[]> opPosition = new HashMap<>();
		for (int k = 0; k < KEYS; k++) {
			long highest = 0;
			List<?> log = (List<?>) store.call("LRANGE", TortureStore.logKey("k" + k), "0", "-1");
			for (int i = 0; i < log.size(); i++) {
				String[] f = ((String) log.get(i)).split(" ");
				long token = Long.parseLong(f[1]);
				boolean accepted = f[2].equals("1");
				report.operations++;
				if (accepted && token < highest) {
					report.fencingViolations.add("k" + k + ": accepted token " + token + " after " + highest);
				}
				if (!accepted) {
					report.staleRejected++;
				}
				opPosition.put(f[0], new long[] { highest, accepted ? 1 : 0 });
				if (accepted) {
					highest = Math.max(highest, token);
				}
			}
		}
		for (Object entry : (List<?>) store.call("LRANGE", TortureStore.WRITES, "0", "-1")) {
			String[] f = ((String) entry).split(" ");
			if (!f[4].equals("1")) {
				continue;
			}
			report.lateWrites++;
			long token = Long.parseLong(f[2]);
			long[] position = opPosition.get(f[0]);
			boolean newerHolderWrote = position[0] > token;
			boolean accepted = position[1] == 1;
			if (newerHolderWrote && accepted) {
				report.fencingViolations
					.add(f[0] + ": late write with token " + token + " accepted after a newer holder");
			}
			else if (newerHolderWrote) {
				report.lateRejected++;
			}
			else {
				report.lateUnopposed++;
			}
		}
		return report;
	}

	static final class Report {

		final List<String> overlaps = new ArrayList<>();

		final List<String> fencingViolations = new ArrayList<>();

		final List<String> sharedTokens = new ArrayList<>();

		int sections;

		int operations;

		int staleRejected;

		int lateWrites;

		int lateRejected;

		int lateUnopposed;

		int expiredBeforeStart;

		String summary(Map<String, ? extends Number> faults, List<String> clients) {
			int violations = this.overlaps.size() + this.fencingViolations.size() + this.sharedTokens.size();
			return "TORTURE SUMMARY seed=" + SEED + " faults-for=" + DURATION.toSeconds() + "s clients=" + CLIENTS + "x"
					+ THREADS + " keys=" + KEYS + " ttl=" + TTL.toMillis() + "ms\n  operations (fenced writes): "
					+ this.operations + "\n  acquisitions (critical sections): " + this.sections + " ("
					+ this.expiredBeforeStart + " found their lease already expired when they began)\n  clients: "
					+ clients + "\n  faults injected: "
					+ faults.entrySet()
						.stream()
						.map((fault) -> fault.getKey() + "=" + fault.getValue())
						.sorted()
						.collect(Collectors.joining(", "))
					+ "\n  violations: " + violations + " (overlapping sections " + this.overlaps.size()
					+ ", stale writes accepted " + this.fencingViolations.size() + ", shared tokens "
					+ this.sharedTokens.size() + ")"
					+ (violations > 0 ? "\n    " + this.overlaps + this.fencingViolations + this.sharedTokens : "")
					+ "\n  stale writes rejected by the store: " + this.staleRejected
					+ "\n  writes sent after their lease expired: " + this.lateWrites
					+ " (rejected after a newer holder: " + this.lateRejected
					+ ", accepted with no newer holder in between: " + this.lateUnopposed + ")";
		}

	}

}
