package io.github.redlock.torture;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.FakeClocks;
import io.github.redlock.embedded.FleetProxy;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.RedlockRegistry;
import io.github.redlock.torture.TortureChecker.Report;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The torture run: client JVMs contend on a few keys while a nemesis kills, restarts,
 * pauses and slows nodes, crashes one node or a quorum back to older snapshots,
 * black-holes a node, pauses the clients themselves past their TTL, and partitions and
 * delays the network between each client and the nodes ({@link Nemesis}). The
 * {@link TortureChecker} then looks for sections that overlapped while both leases were
 * valid (exclusive holders, or a writer and any holder of its key, the exclusive lock of
 * a read-write key counting as its writer), more permit holders at once than permits,
 * tokens shared or out of order, writes the store accepted out of order (in a lease, or
 * sent after it), leases handed out spent, and workers that threw; the run itself looks
 * for clients that failed, keys nobody can take again and lock keys left on the nodes.
 * {@link #theCheckerFindsWhatABrokenEngineBreaks} shows each of those checks failing on
 * an engine broken for it.
 * <p>
 * 30 s of faults in {@code ./mvnw verify} (the {@code redlock.torture.duration} property
 * of the build), 30 minutes with {@code -Dsoak} (where a run of
 * {@value #EVERY_KIND_AFTER_MINUTES} minutes or more must have injected every kind of
 * fault the nemesis draws, the clock faults too where nodes have a fake clock), any other
 * time with {@code -Dredlock.torture.duration=PT10M}; replay a schedule with
 * {@code -Dredlock.torture.seed=<seed>}. Each run writes its history to
 * {@code target/torture-history-<seed>.jsonl} and is judged from that file; judge a saved
 * one again with {@code TortureHistoryRecheckTests}.
 */
class TortureIntegrationTests {

	private static final Duration DURATION = Duration.parse(System.getProperty("redlock.torture.duration", "PT30S"));

	/**
	 * How long a run must last to be expected to have drawn and injected every kind of
	 * fault, given the draws skipped while too many nodes are disturbed.
	 */
	static final long EVERY_KIND_AFTER_MINUTES = 10;

	static final long SEED = Long.getLong("redlock.torture.seed", System.nanoTime());

	static final int CLIENTS = 4;

	private static final int THREADS = 3;

	static final int KEYS = 3;

	static final Duration TTL = Duration.ofSeconds(1);

	static final Duration MAX_TTL = Duration.ofSeconds(2);

	@Test
	void mutualExclusionAndFencingHoldUnderFaults(@TempDir Path directory) throws Exception {
		System.out.println("torture: seed " + SEED + ", " + DURATION.toSeconds() + "s of faults");
		try (RedisFleet fleet = fleetWithClockFaults(); RedisNode store = RedisNode.start("store")) {
			ClockNemesis clocks = new ClockNemesis(fleet, new Random(SEED), TTL, MAX_TTL);
			String skewed = clocks.active() ? clocks.skew() : "none";
			Clients clients = Clients.start(directory, fleet, store, "mix");
			Nemesis nemesis = new Nemesis(fleet, clients.processes, clients.networks, SEED, KEYS, TTL, MAX_TTL, clocks);
			nemesis.run(DURATION);
			// the faults have stopped; let restarted nodes through their guard
			Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
			Path history = Path.of("target", "torture-history-" + SEED + ".jsonl");
			Report report = clients.stop(store, history);
			String lastOffsets = clocks.active() ? clocks.offsets() : "none";
			// the clocks behind true time step forward now, with no client to see it
			fleet.undoFaults();
			List<String> keys = new ArrayList<>(List.of(TortureStore.READ_WRITE_KEY, TortureStore.SEMAPHORE_KEY));
			for (int k = 0; k < KEYS; k++) {
				keys.add("k" + k);
			}
			checkLiveness(fleet, keys, Duration.ofSeconds(10), TTL.plusSeconds(5), report);
			System.out.println("TORTURE SUMMARY seed=" + SEED + " clients=" + CLIENTS + "x" + THREADS + " keys=" + KEYS
					+ " ttl=" + TTL.toMillis() + "ms\n  nodes: "
					+ fleet.nodes()
						.stream()
						.map((node) -> node.name() + " " + node.binary().version().replaceAll(".*v=([0-9.]+).*", "$1")
								+ (node.hasFakeClock() ? " (fake clock)" : ""))
						.collect(Collectors.joining(", "))
					+ "\n  clocks: bound +-" + clocks.bound().toMillis() + " ms; skewed at the start: " + skewed
					+ "; at the end: " + lastOffsets + "\n  clients: " + clients.results + "\n  faults injected: "
					+ listed(nemesis.faults()) + "\n  faults drawn but skipped: " + listed(nemesis.skipped())
					+ "\n  history: " + history.toAbsolutePath() + " (" + History.read(history).tally() + ")\n"
					+ report.summary());
			if (report.violations() > 0) {
				clients.keepLogs(Path.of("target", "torture-logs-" + SEED));
			}
			assertThat(report.byKind()).allSatisfy((kind, found) -> assertThat(found).as(kind).isEmpty());
			// enough held while valid, of each kind, to have judged something
			assertThat(report.validSections).isGreaterThan(100);
			assertThat(report.readWriteSections).isGreaterThan(10);
			assertThat(report.permitSections).isGreaterThan(10);
			assertThat(nemesis.faults().values().stream().mapToInt(Number::intValue).sum()).as("faults injected")
				.isGreaterThanOrEqualTo(15);
			assertThat(nemesis.faults()).as("faults injected")
				.hasEntrySatisfying(Nemesis.QUORUM_RESTORED,
						(count) -> assertThat(count.get()).isGreaterThanOrEqualTo(2))
				.anySatisfy((fault, count) -> assertThat(fault).startsWith("partition"));
			if (clocks.active()) {
				assertThat(nemesis.faults()).as("faults injected")
					.containsKey("clock set back on a running node, within the bound (a quorum)");
			}
			if (DURATION.toMinutes() >= EVERY_KIND_AFTER_MINUTES) {
				assertThat(Nemesis.Kind.drawn(clocks.active())).as("every kind of fault injected in a long run")
					.allSatisfy((kind) -> assertThat(nemesis.faults().keySet()).as(kind.label)
						.anySatisfy((fault) -> assertThat(fault).startsWith(kind.label)));
			}
		}
	}

	/**
	 * Five nodes, the first three with a fake clock where libfaketime allows, the other
	 * two on the usual binary (Debian's redis-server 7.0 does not start under it); else
	 * five nodes with the machine's clock, saying that the clock faults are skipped (or
	 * failing if they are required).
	 */
	private static RedisFleet fleetWithClockFaults() {
		if (FakeClocks.available()) {
			return RedisFleet.startWithFakeClocks(5, 3);
		}
		String reason = FakeClocks.unavailableReason().orElseThrow();
		assertThat(FakeClocks.required()).as(FakeClocks.REQUIRED_VARIABLE + " is set, but: " + reason).isFalse();
		System.out.println("SKIPPED clock faults: " + reason);
		return RedisFleet.start(5);
	}

	/**
	 * A checker that cannot fail proves nothing. Each {@link BrokenVariant} breaks the
	 * engine, the store or the client in one way on a key of its own, all at once in the
	 * same client JVMs, and the check it is meant for must find it in that key's history:
	 * a quorum of one (overlapping exclusive sections, and writers overlapping another
	 * holder), a semaphore of one permit too many, fencing counters reset, the floor
	 * removed while a quorum comes back from older snapshots, a store that accepts every
	 * write (in leases, and from a holder that stood still past its lease), leases handed
	 * out spent, an engine that throws, and lock keys left without expiry on every node
	 * (nobody takes the key again) or on one (the key is left behind).
	 */
	@Test
	void theCheckerFindsWhatABrokenEngineBreaks(@TempDir Path directory) throws Exception {
		try (RedisFleet fleet = RedisFleet.start(5); RedisNode store = RedisNode.start("store")) {
			Clients clients = Clients.start(directory, fleet, store, "broken");
			restoreAQuorumUnderTheFloorlessVariant(fleet, store, directory);
			// every variant has done its harm (the stuck key is taken once, the throwing
			// engine may throw before it grants anything)
			awaitUntil(Duration.ofSeconds(60), () -> {
				History recording = History.read(store);
				List<String> recorded = new ArrayList<>(recording.sections());
				recording.errors().forEach((line) -> recorded.add(line.substring(line.indexOf(' ') + 1)));
				return List.of(BrokenVariant.values())
					.stream()
					.allMatch((variant) -> recorded.stream().anyMatch((line) -> line.startsWith(variant.key() + " ")));
			});
			// judged from its file, as a saved run would be
			Path file = Path.of("target", "torture-history-broken-" + SEED + ".jsonl");
			Report all = clients.stop(store, file);
			List<String> keys = List.of(BrokenVariant.values()).stream().map(BrokenVariant::key).toList();
			checkLiveness(fleet, keys, MAX_TTL.plusSeconds(1), TTL.plusSeconds(2), all);
			History history = History.read(file);
			StringBuilder figures = new StringBuilder("BROKEN ENGINE ROUND seed=" + SEED + "\n  history: "
					+ file.toAbsolutePath() + " (" + history.tally() + ")\n  clients: " + clients.results
					+ "\n  client failures: " + all.clientFailures);
			Map<BrokenVariant, Report> reports = new EnumMap<>(BrokenVariant.class);
			for (BrokenVariant variant : BrokenVariant.values()) {
				Report report = TortureChecker.check(history.forKey(variant.key()));
				report.deadlocks.addAll(naming(all.deadlocks, variant.key()));
				report.leftoverKeys.addAll(naming(all.leftoverKeys, variant.key()));
				reports.put(variant, report);
				figures.append("\n  ")
					.append(variant)
					.append(" (")
					.append(report.sections)
					.append(" sections): ")
					.append(variant.check())
					.append(" ")
					.append(variant.found(report).size())
					.append("; everything found: ")
					.append(report.byKind()
						.entrySet()
						.stream()
						.filter((kind) -> !kind.getValue().isEmpty())
						.map((kind) -> kind.getKey() + " " + kind.getValue().size())
						.collect(Collectors.joining(", ")));
			}
			System.out.println(figures);
			assertThat(reports).allSatisfy((variant, report) -> assertThat(variant.found(report))
				.as(variant + " must be caught by the check for " + variant.check())
				.isNotEmpty());
			// the throwing engine's clients say so by their exit status too
			assertThat(all.clientFailures).isNotEmpty()
				.allSatisfy((failure) -> assertThat(failure).contains("exit " + TortureClient.WORKER_FAILED));
		}
	}

	/**
	 * Brings three nodes back from snapshots older than some of the floorless variant's
	 * acquisitions, the other two paused, as the nemesis's stale quorum does. The
	 * variant's workers hold off from just before until the restarted nodes' guard has
	 * ended: attempts refused meanwhile would raise the restored counters past the lost
	 * acquisitions (each refused attempt may keep its increment), hiding what the floor
	 * is there for.
	 */
	private static void restoreAQuorumUnderTheFloorlessVariant(RedisFleet fleet, RedisNode store, Path directory)
			throws Exception {
		String floorless = BrokenVariant.NO_FLOOR.key();
		awaitUntil(Duration.ofSeconds(60),
				() -> fleet.nodes()
					.stream()
					.allMatch((node) -> node.call("GET", "redlock:fence:{" + floorless + "}") != null));
		fleet.nodes().forEach(RedisNode::snapshot);
		int before = sectionsOf(store, floorless);
		awaitUntil(Duration.ofSeconds(60), () -> sectionsOf(store, floorless) >= before + 4);
		Path hold = directory.resolve(TortureClient.HOLD_NO_FLOOR);
		Files.createFile(hold);
		awaitUntil(Duration.ofSeconds(60), () -> lines(store, TortureClient.HOLDING).size() == CLIENTS);
		fleet.node(3).pause();
		fleet.node(4).pause();
		for (int node = 0; node < 3; node++) {
			fleet.node(node).crashToSnapshot();
		}
		// the guard counts from each node's start
		Thread.sleep(MAX_TTL.plusMillis(500).toMillis());
		int restored = sectionsOf(store, floorless);
		Files.delete(hold);
		awaitUntil(Duration.ofSeconds(60), () -> sectionsOf(store, floorless) >= restored + 3);
		fleet.node(3).resume();
		fleet.node(4).resume();
	}

	private static List<String> naming(List<String> found, String key) {
		return found.stream().filter((line) -> line.contains("{" + key + "}")).toList();
	}

	/**
	 * Looks for deadlocks and leftovers once every client stopped: each key must be taken
	 * again within {@code wait} (its read-write lock's write lock, or every permit of its
	 * semaphore), and no lock key may be left on any node after {@code linger} (a paused
	 * client's lost leases expire within their TTL).
	 */
	private static void checkLiveness(RedisFleet fleet, List<String> keys, Duration wait, Duration linger,
			Report report) throws Exception {
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.defaultTtl(TTL)
			.maxTtl(MAX_TTL)
			.build()
			.start()) {
			for (String key : keys) {
				List<Lease> leases = new ArrayList<>();
				try {
					if (key.startsWith(TortureStore.SEMAPHORE_KEY.substring(0, 1))) {
						for (int p = 0; p < TortureStore.PERMITS; p++) {
							leases.add(registry.semaphore(key, TortureStore.PERMITS).acquire(TTL, wait));
						}
					}
					else if (key.startsWith(TortureStore.READ_WRITE_KEY.substring(0, 1))) {
						leases.add(registry.acquireWrite(key, TTL, wait));
					}
					else {
						leases.add(registry.acquire(key, TTL, wait));
					}
				}
				catch (LockAcquisitionException ex) {
					report.deadlocks.add("{" + key + "} could not be taken within " + wait + ": " + ex.getMessage());
				}
				leases.forEach(Lease::release);
			}
		}
		long deadline = System.nanoTime() + linger.toNanos();
		List<String> left = lockKeys(fleet);
		while (!left.isEmpty() && System.nanoTime() < deadline) {
			Thread.sleep(100);
			left = lockKeys(fleet);
		}
		report.leftoverKeys.addAll(left);
	}

	private static List<String> lockKeys(RedisFleet fleet) {
		List<String> keys = new ArrayList<>();
		for (RedisNode node : fleet.nodes()) {
			for (Object key : (List<?>) node.call("KEYS", "redlock:lock:*")) {
				keys.add(node.name() + " " + key);
			}
		}
		return keys;
	}

	private static void awaitUntil(Duration atMost, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + atMost.toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("waited " + atMost + " for the run to get there").isLessThan(deadline);
			Thread.sleep(100);
		}
	}

	private static int sectionsOf(RedisNode store, String key) {
		return (int) History.read(store).sections().stream().filter((line) -> line.startsWith(key + " ")).count();
	}

	private static List<String> lines(RedisNode store, String list) {
		return ((List<?>) store.call("LRANGE", list, "0", "-1")).stream().map(String.class::cast).toList();
	}

	private static String listed(Map<String, ? extends Number> counts) {
		return counts.entrySet()
			.stream()
			.map((fault) -> fault.getKey() + "=" + fault.getValue())
			.sorted()
			.collect(Collectors.joining(", "));
	}

	/**
	 * The client JVMs of one run, each reaching the nodes through proxies of its own, so
	 * that the nemesis can partition one client from nodes another still reaches. Each
	 * one's whole output is kept in a file beside its engine log.
	 */
	static final class Clients {

		final List<Process> processes = new ArrayList<>();

		final List<FleetProxy> networks = new ArrayList<>();

		final List<String> results = Collections.synchronizedList(new ArrayList<>());

		private final Path directory;

		private final Path stop;

		private Clients(Path directory) {
			this.directory = directory;
			this.stop = directory.resolve("stop");
		}

		/**
		 * Starts the clients on cluster members, each client reaching them directly (the
		 * cluster faults need no partition): {@code nodes} is the nodes argument of
		 * {@link TortureClient}.
		 */
		static Clients startOnClusters(Path directory, String nodes, RedisNode store, String plan, Duration ttl,
				Duration maxTtl) throws Exception {
			Clients clients = new Clients(directory);
			CountDownLatch ready = new CountDownLatch(CLIENTS);
			for (int i = 0; i < CLIENTS; i++) {
				clients.processes.add(clients.startClient("c" + i, List.of(nodes), store, ready, plan, ttl, maxTtl));
			}
			assertThat(ready.await(2, TimeUnit.MINUTES)).as("clients ready").isTrue();
			return clients;
		}

		static Clients start(Path directory, RedisFleet fleet, RedisNode store, String plan) throws Exception {
			// an established fleet: up for longer than the maximum TTL
			Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
			Clients clients = new Clients(directory);
			CountDownLatch ready = new CountDownLatch(CLIENTS);
			for (int i = 0; i < CLIENTS; i++) {
				FleetProxy network = fleet.proxy("c" + i);
				clients.networks.add(network);
				clients.processes.add(clients.startClient("c" + i, network.uris(), store, ready, plan, TTL, MAX_TTL));
			}
			assertThat(ready.await(2, TimeUnit.MINUTES)).as("clients ready").isTrue();
			return clients;
		}

		private Process startClient(String id, List<String> nodes, RedisNode store, CountDownLatch ready, String plan,
				Duration ttl, Duration maxTtl) throws Exception {
			String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
			Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
					System.getProperty("java.class.path"), TortureClient.class.getName(), id, String.join(",", nodes),
					store.uri(), String.valueOf(KEYS), String.valueOf(THREADS), String.valueOf(ttl.toMillis()),
					String.valueOf(maxTtl.toMillis()), this.stop.toString(), String.valueOf(SEED + id.hashCode()), plan)
				.redirectErrorStream(true)
				.start();
			Path output = this.directory.resolve("client-" + id + ".out");
			Thread reader = new Thread(() -> {
				try (BufferedReader lines = new BufferedReader(
						new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
						PrintWriter out = new PrintWriter(Files.newBufferedWriter(output), true)) {
					String line;
					while ((line = lines.readLine()) != null) {
						out.println(line);
						if (line.startsWith("READY")) {
							ready.countDown();
						}
						else if (line.startsWith("RESULT")) {
							this.results.add(line.substring("RESULT ".length()));
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

		/**
		 * Stops the clients, writes what they recorded to a history file and checks what
		 * it reads back from that file; a client that did not exit cleanly is a failure
		 * of the run.
		 */
		Report stop(RedisNode store, Path history) throws Exception {
			Files.createFile(this.stop);
			List<String> failures = new ArrayList<>();
			try {
				for (int i = 0; i < this.processes.size(); i++) {
					Process client = this.processes.get(i);
					if (!client.waitFor(2, TimeUnit.MINUTES)) {
						failures.add("c" + i + " did not exit within 2 minutes of the stop");
					}
					else if (client.exitValue() != 0) {
						failures.add("c" + i + " exit " + client.exitValue() + " (its output: "
								+ this.directory.resolve("client-c" + i + ".out") + ")");
					}
				}
			}
			finally {
				this.processes.forEach(Process::destroyForcibly);
			}
			History.read(store).write(history);
			Report report = TortureChecker.check(History.read(history));
			report.clientFailures.addAll(failures);
			return report;
		}

		/** Keeps the clients' engine logs and output for the post-mortem. */
		void keepLogs(Path kept) throws Exception {
			Files.createDirectories(kept);
			try (var logs = Files.list(this.directory)) {
				for (Path log : logs.filter((f) -> f.getFileName().toString().startsWith("client-")).toList()) {
					Files.copy(log, kept.resolve(log.getFileName()));
				}
			}
			System.out.println("client logs kept in " + kept.toAbsolutePath());
		}

	}

}
