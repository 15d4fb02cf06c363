package io.github.redlock.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.embedded.RedisServerBinary;

/**
 * Runs, over the same local {@code redis-server} nodes, this project's registry, a bare
 * Lettuce quorum, {@code RedissonRedLock} and Redisson's single-node {@code RLock},
 * interleaved (each repetition runs every scenario for every contender in turn, starting
 * with a different contender), and prints Markdown tables of the figures, the registry's
 * ratios to each, and issue 15's targets next to the measured ratios. It asserts nothing.
 * <p>
 * The one-JVM scenarios run in this JVM; the two-JVM ones (a handoff back and forth, and
 * 4 threads in each JVM on one key) run each contender in this JVM and in a second JVM
 * that it starts ({@link SecondJvm}) over the same nodes, coordinated over that JVM's
 * standard input and output. The registry runs with its restart guard on unless
 * {@code bench.restart-guard=false}, after waiting the guard out on the fresh nodes.
 * Issue 27's herd ({@link HerdScenario}: {@code bench.herd-jvms} JVMs, 4 by default, of
 * {@code bench.herd-threads} threads on one key with a {@code bench.herd-section-us}
 * critical section) runs the registry and the bare quorum only, and the last table puts
 * what a cycle costs beside the bare quorum and issue 27's targets.
 * <p>
 * Run with {@code ./mvnw -B -pl redlock-benchmarks -am verify -DskipTests -Dbenchmarks};
 * system properties (Maven {@code -D} options) {@code bench.reps}, {@code bench.seconds},
 * {@code bench.warmup-seconds}, {@code bench.nodes}, {@code bench.ttl-ms},
 * {@code bench.hold-ms}, {@code bench.section-us}, {@code bench.bare-retry-ms},
 * {@code bench.restart-guard} and {@code bench.two-jvms} change the defaults
 * ({@link BenchSettings}).
 * <p>
 * Past the size target because it is one harness run in order: it starts the nodes,
 * interleaves the contenders per scenario and prints the tables, whose rows (figures,
 * ratios, each issue's targets) are most of its length; the scenarios themselves are
 * {@code Scenarios}, {@code HerdScenario} and {@code SecondJvm}, and the charts
 * {@code BenchmarkCharts}.
 */
public final class ComparisonBenchmark {

	private static final int CONTENDING_THREADS = 8;

	private static final int CONTENDING_THREADS_PER_JVM = 4;

	/** JVMs of the herd, this one included ({@code bench.herd-jvms}; below 2: none). */
	private static final int HERD_JVMS = Integer.getInteger("bench.herd-jvms", 4);

	private static final int HERD_THREADS_PER_JVM = Integer.getInteger("bench.herd-threads", 2);

	private static final Duration HERD_SECTION = Duration
		.ofNanos(1000L * Integer.getInteger("bench.herd-section-us", 1000));

	private ComparisonBenchmark() {
	}

	/**
	 * Runs the comparison and prints it.
	 * @param args none
	 * @throws Exception if a run failed or got stuck
	 */
	public static void main(String[] args) throws Exception {
		BenchSettings settings = BenchSettings.fromSystemProperties();
		System.out.println(machine());
		System.out.println(settings.describe());
		System.out.println("load average at start: " + loadAverage());
		long started = System.nanoTime();
		Duration readyTimeout = settings.ttl().multipliedBy(2).plusSeconds(60);
		try (RedisFleet fleet = RedisFleet.start(settings.nodes());
				// started first, so that its start-up overlaps the restart guard's wait
				SecondJvm second = settings.twoJvms() ? SecondJvm.start(settings, fleet.uris()) : null;
				ContenderSet contenderSet = new ContenderSet(fleet.uris(), settings);
				HerdJvms herdJvms = new HerdJvms(settings, fleet.uris(), HERD_JVMS - 1);
				NodeAttempts firstNode = new NodeAttempts(fleet.node(0))) {
			System.out.println(
					"redis-server: " + info(fleet.node(0), "redis_version") + ", " + RedisServerBinary.get().version());
			RegistryContender registry = contenderSet.registry();
			trustNodes(settings, fleet, registry, readyTimeout);
			TwoJvmScenarios twoJvms = (second != null) ? connect(second, settings, readyTimeout) : null;
			HerdScenario herd = herdJvms.ready(readyTimeout)
					? new HerdScenario(herdJvms.jvms(), HERD_SECTION, firstNode) : null;
			List<Contender> contenders = contenderSet.all();
			Map<Contender, Figures> figures = new LinkedHashMap<>();
			contenders.forEach((contender) -> figures.put(contender, new Figures()));
			Scenarios scenarios = new Scenarios(settings.hold(), settings.section());
			if (!settings.warmup().isZero()) {
				Map<Contender, Figures> discarded = new LinkedHashMap<>();
				contenders.forEach((contender) -> discarded.put(contender, new Figures()));
				runRep(fleet.nodes(), scenarios, twoJvms, herd, contenders, discarded, new FencingTally(registry),
						settings.warmup(), "warmup", 0);
			}
			if (!settings.costWarmup().isZero()) {
				// after the warm-up of every scenario, whose contention takes the code
				// paths that the cycles do not, so that the compiler settles on what all
				// of them take before the cycles' cost is measured
				warmUpCycles(scenarios, contenders, settings.costWarmup());
			}
			FencingTally fencing = new FencingTally(registry);
			long[] secondBefore = (twoJvms != null) ? stats(second) : null;
			for (int rep = 1; rep <= settings.reps(); rep++) {
				runRep(fleet.nodes(), scenarios, twoJvms, herd, contenders, figures, fencing, settings.measure(),
						"rep" + rep, rep);
				System.out.printf("rep %d of %d done%n", rep, settings.reps());
			}
			System.out.printf("registry fencing second rounds (restart guard %s):%n",
					settings.restartGuard() ? "on" : "off");
			fencing.print();
			if (secondBefore != null) {
				long[] secondAfter = stats(second);
				System.out.printf(Locale.ROOT, "  %-44s %d of %d acquisitions%n",
						"the second JVM's registry (one key, 2 JVMs):", secondAfter[1] - secondBefore[1],
						secondAfter[0] - secondBefore[0]);
			}
			System.out.println("load average at end: " + loadAverage());
			System.out.printf(Locale.ROOT, "run took %.0f s%n%n", (System.nanoTime() - started) / 1e9);
			String notMeasured = (second == null) ? "bench.two-jvms=false"
					: "the two JVMs' System.nanoTime() did not compare";
			print(contenders, figures, (twoJvms != null) ? null : notMeasured);
			writeCharts(contenders, figures, settings, twoJvms != null);
			printCostTargets(contenders, figures, fencing, twoJvms != null, herd != null);
		}
	}

	/**
	 * Draws the main figures of the tables just printed, cycles/s and handoff latency by
	 * threads and by JVMs for every contender, into {@code bench.charts-dir}
	 * (docs/images/benchmarks by default, which docs/benchmarks.md embeds).
	 */
	private static void writeCharts(List<Contender> contenders, Map<Contender, Figures> figures, BenchSettings settings,
			boolean twoJvms) throws IOException {
		Path dir = Path.of(System.getProperty("bench.charts-dir",
				Files.isDirectory(Path.of("docs")) ? "docs/images/benchmarks" : "../docs/images/benchmarks"));
		String caption = "ComparisonBenchmark, " + settings.describe() + "\n" + machine();
		List<BenchmarkCharts.Series> cycles = new ArrayList<>();
		List<BenchmarkCharts.Series> handoffs = new ArrayList<>();
		for (Contender contender : contenders) {
			Figures f = figures.get(contender);
			double none = Double.NaN;
			cycles.add(new BenchmarkCharts.Series(contender.name(),
					new double[] { f.oneThread.perSecond(), f.sixteenThreads.perSecond(),
							f.oneKey.acquisitions.perSecond(),
							twoJvms ? f.twoJvmOneKey.acquisitions.perSecond() : none }));
			handoffs.add(new BenchmarkCharts.Series(contender.name(),
					new double[] { f.handoff.percentileMicros(50), f.oneKey.handoffs.percentileMicros(50),
							twoJvms ? f.twoJvmHandoff.percentileMicros(50) : none,
							twoJvms ? f.twoJvmOneKey.handoffs.percentileMicros(50) : none }));
		}
		System.out.println("charts: " + List.of(
				BenchmarkCharts.write(dir, "cycles",
						new BenchmarkCharts.Chart("Acquire+release cycles and acquisitions per second", "per second",
								List.of("1 thread, new keys", "16 threads, new keys", "8 threads, one key",
										"2 JVMs x 4 threads, one key"),
								cycles, caption)),
				BenchmarkCharts.write(dir, "handoff-latency", new BenchmarkCharts.Chart(
						"Handoff latency p50: release to the next holder's grant", "µs", List.of("2 threads, one JVM",
								"8 threads, one JVM", "1 thread in each of 2 JVMs", "4 threads in each of 2 JVMs"),
						handoffs, caption))));
	}

	/**
	 * With the restart guard on, waits until the registry counts every fresh node: it
	 * creates each node's marker key and keeps the node out for {@code maxTtl} (the TTL
	 * here) plus its drift from then, by which time the node has also been up longer than
	 * that. Prints how long that took and what the guard said.
	 */
	private static void trustNodes(BenchSettings settings, RedisFleet fleet, RegistryContender registry,
			Duration timeout) {
		RegistryContender.Usable usable = registry.awaitUsable(timeout);
		long uptimeLeast = Long.MAX_VALUE;
		for (RedisNode node : fleet.nodes()) {
			String uptime = info(node, "uptime_in_seconds");
			uptimeLeast = Math.min(uptimeLeast, Long.parseLong(uptime.substring(uptime.indexOf(':') + 1).trim()));
		}
		if (settings.restartGuard()) {
			System.out.printf(Locale.ROOT,
					"restart guard on (maxTtl %s): the registry counted every node after %.1f s (%s); nodes up"
							+ " at least %d s (uptime_in_seconds)%n",
					settings.ttl(), usable.waited().toNanos() / 1e9,
					(usable.reason() != null) ? "it said: " + usable.reason() : "none kept out", uptimeLeast);
		}
		else {
			System.out.printf(Locale.ROOT, "restart guard off: every node counted after %.1f s%n",
					usable.waited().toNanos() / 1e9);
		}
	}

	/**
	 * Waits until the second JVM is ready, checks that the two JVMs' clocks compare, and
	 * returns the two-JVM scenarios, or {@code null} when the clocks do not compare.
	 */
	private static TwoJvmScenarios connect(SecondJvm second, BenchSettings settings, Duration timeout)
			throws InterruptedException {
		// longer than the second JVM's own wait, so that its report of a failure arrives
		long waited = Long.parseLong(second.reply("ready", timeout.plusSeconds(30))[0]);
		System.out.printf(Locale.ROOT, "second JVM (pid %d): its registry counted every node after %.1f s%n",
				second.pid(), waited / 1e3);
		SecondJvm.ClockCheck clock = second.checkClock(50);
		System.out.printf(Locale.ROOT,
				"System.nanoTime() across the two JVMs: %d of %d readings of the second JVM fell between this"
						+ " JVM's readings before and after; bracket narrowest %.1f µs, median %.1f µs%s%n",
				clock.inside(), clock.rounds(), clock.narrowestNanos() / 1e3, clock.medianNanos() / 1e3,
				clock.comparable() ? "" : String.format(Locale.ROOT,
						", worst reading %.1f µs outside: not comparable, the two-JVM" + " scenarios are skipped",
						clock.worstMissNanos() / 1e3));
		return clock.comparable() ? new TwoJvmScenarios(second, settings.hold(), settings.section()) : null;
	}

	private static long[] stats(SecondJvm second) throws InterruptedException {
		second.send("stats");
		String[] words = second.reply("stats", Duration.ofSeconds(30));
		return new long[] { Long.parseLong(words[0]), Long.parseLong(words[1]) };
	}

	private static String info(RedisNode node, String field) {
		return node.call("INFO", "server")
			.toString()
			.lines()
			.filter((line) -> line.startsWith(field + ":"))
			.findFirst()
			.orElse(field + ":?");
	}

	private static void runRep(List<RedisNode> nodes, Scenarios scenarios, TwoJvmScenarios twoJvms, HerdScenario herd,
			List<Contender> contenders, Map<Contender, Figures> figures, FencingTally fencing, Duration duration,
			String rep, int rotation) throws Exception {
		List<Contender> order = new ArrayList<>(contenders);
		Collections.rotate(order, -rotation);
		for (Contender contender : order) {
			Figures figure = figures.get(contender);
			figure.oneThreadCost.measure(nodes, figure.oneThread, () -> fencing.count(contender, FencingTally.NEW_KEYS,
					() -> scenarios.cycles(contender, 1, duration, key(contender, rep, "c1:"), figure.oneThread)));
		}
		for (Contender contender : order) {
			Figures figure = figures.get(contender);
			figure.sixteenThreadsCost.measure(nodes, figure.sixteenThreads,
					() -> fencing.count(contender, FencingTally.NEW_KEYS, () -> scenarios.cycles(contender, 16,
							duration, key(contender, rep, "c16:"), figure.sixteenThreads)));
		}
		for (Contender contender : order) {
			fencing.count(contender, FencingTally.ONE_KEY, () -> scenarios.oneKey(contender, CONTENDING_THREADS,
					duration, key(contender, rep, "k8"), figures.get(contender).oneKey));
		}
		for (Contender contender : order) {
			fencing.count(contender, FencingTally.ONE_KEY, () -> scenarios.handoff(contender, duration,
					key(contender, rep, "k2"), figures.get(contender).handoff));
		}
		if (herd != null) {
			// the registry and the bare quorum only: the herd is about their retry loops
			for (Contender contender : order) {
				int index = contenders.indexOf(contender);
				if (index < 2) {
					fencing.count(contender, FencingTally.HERD, () -> herd.run(index, contender, HERD_THREADS_PER_JVM,
							duration, key(contender, rep, "herd"), figures.get(contender).herd));
				}
			}
		}
		if (twoJvms == null) {
			return;
		}
		for (Contender contender : order) {
			fencing.count(contender, FencingTally.TWO_JVMS, () -> twoJvms.handoff(contenders.indexOf(contender),
					contender, duration, key(contender, rep, "x2"), figures.get(contender).twoJvmHandoff));
		}
		for (Contender contender : order) {
			fencing.count(contender, FencingTally.TWO_JVMS_EIGHT_THREADS,
					() -> twoJvms.oneKey(contenders.indexOf(contender), contender, CONTENDING_THREADS_PER_JVM, duration,
							key(contender, rep, "x8"), figures.get(contender).twoJvmOneKey));
		}
	}

	/**
	 * Loops each contender's acquire+release cycles, on 1 thread and then on 16, and
	 * discards what they did: the cost of a cycle is measured in steady state, once the
	 * JIT compiler has compiled each contender's code (the cost table prints what the
	 * compiler threads still took).
	 */
	private static void warmUpCycles(Scenarios scenarios, List<Contender> contenders, Duration duration)
			throws Exception {
		long started = System.nanoTime();
		for (Contender contender : contenders) {
			scenarios.cycles(contender, 1, duration, key(contender, "warmup", "cw1:"), new Figures.Rate());
			scenarios.cycles(contender, 16, duration.dividedBy(2), key(contender, "warmup", "cw16:"),
					new Figures.Rate());
		}
		System.out.printf(Locale.ROOT, "cycles warmed up: %.0f s%n", (System.nanoTime() - started) / 1e9);
	}

	private static String key(Contender contender, String rep, String scenario) {
		return "bench:" + contender.name().replaceAll("[^A-Za-z0-9]", "") + ":" + rep + ":" + scenario;
	}

	/**
	 * Prints the tables; {@code twoJvmsNotMeasured} says why the two-JVM scenarios did
	 * not run, or is {@code null} when they did.
	 */
	private static void print(List<Contender> contenders, Map<Contender, Figures> figures, String twoJvmsNotMeasured) {
		boolean twoJvms = twoJvmsNotMeasured == null;
		Contender registry = contenders.get(0);
		System.out.println("One JVM:");
		System.out.println();
		header(contenders);
		row("1 thread, acquire+release cycles/s", contenders, figures, (f) -> f.oneThread.perSecond(), false);
		row("16 threads, cycles/s", contenders, figures, (f) -> f.sixteenThreads.perSecond(), false);
		row("8 threads on one key, acquisitions/s", contenders, figures, (f) -> f.oneKey.acquisitions.perSecond(),
				false);
		row("same: handoff to another thread p50 (µs)", contenders, figures,
				(f) -> f.oneKey.handoffs.percentileMicros(50), true);
		row("same: handoff p99 (µs)", contenders, figures, (f) -> f.oneKey.handoffs.percentileMicros(99), true);
		row("same: fairness, most/fewest acquisitions of a thread", contenders, figures, (f) -> f.oneKey.fairness(),
				true);
		plain("same: share re-acquired by the releasing thread", contenders, figures,
				(f) -> String.format(Locale.ROOT, "%.0f %%", f.oneKey.selfShare() * 100));
		plain("same: overlapping holds (must be 0)", contenders, figures, (f) -> Long.toString(f.oneKey.overlaps()));
		row("2 threads on one key, handoff p50 (µs)", contenders, figures, (f) -> f.handoff.percentileMicros(50), true);
		row("same: handoff p99 (µs)", contenders, figures, (f) -> f.handoff.percentileMicros(99), true);
		plain("same: handoffs measured", contenders, figures, (f) -> Integer.toString(f.handoff.size()));

		System.out.println();
		System.out.println("8 threads on one key, acquisitions per thread:");
		for (Contender contender : contenders) {
			System.out.printf("  %-24s %s%n", contender.name(),
					Arrays.toString(figures.get(contender).oneKey.perThread()));
		}
		printCosts(contenders, figures);
		if (twoJvms) {
			printTwoJvms(contenders, figures);
		}

		Figures ours = figures.get(registry);
		Figures bare = figures.get(contenders.get(1));
		Figures redLock = figures.get(contenders.get(2));
		System.out.println();
		System.out.println("| issue 15 target | measured | met |");
		System.out.println("|---|---:|---|");
		target("1 thread >= 0.95x the bare quorum", ours.oneThread.perSecond() / bare.oneThread.perSecond(), 0.95, "x",
				true);
		target("1 thread >= 6x RedissonRedLock", ours.oneThread.perSecond() / redLock.oneThread.perSecond(), 6, "x",
				true);
		target("16 threads >= 1.5x the bare quorum", ours.sixteenThreads.perSecond() / bare.sixteenThreads.perSecond(),
				1.5, "x", true);
		target("8 threads on one key >= 3x RedissonRedLock acquisitions/s",
				ours.oneKey.acquisitions.perSecond() / redLock.oneKey.acquisitions.perSecond(), 3, "x", true);
		target("same: fairness max/min <= 2", ours.oneKey.fairness(), 2, "", false);
		target("same: handoff p50 <= 300 µs", ours.oneKey.handoffs.percentileMicros(50), 300, " µs", false);
		target("2-thread handoff p50 <= 1 ms, one JVM", ours.handoff.percentileMicros(50), 1000, " µs", false);
		if (twoJvms) {
			target("2-thread handoff p50 <= 2 ms, two JVMs", ours.twoJvmHandoff.percentileMicros(50), 2000, " µs",
					false);
			target("2 JVMs x 4 threads on one key: fairness max/min <= 2 (the one-JVM bound)",
					ours.twoJvmOneKey.fairness(), 2, "", false);
			System.out.printf("| same: holds overlapping across the JVMs = 0 | %d | %s |%n",
					ours.twoJvmOneKey.crossOverlaps(), (ours.twoJvmOneKey.crossOverlaps() == 0) ? "yes" : "no");
		}
		else {
			System.out
				.println("| 2-thread handoff p50 <= 2 ms, two JVMs | not measured (" + twoJvmsNotMeasured + ") | - |");
		}
	}

	/**
	 * Prints issue 27's table: what a cycle costs the JVM and the nodes, and the
	 * contention figures, each beside the bare quorum's of this run and its target.
	 */
	private static void printCostTargets(List<Contender> contenders, Map<Contender, Figures> figures,
			FencingTally fencing, boolean twoJvms, boolean herd) {
		Figures ours = figures.get(contenders.get(0));
		Figures bare = figures.get(contenders.get(1));
		System.out.println();
		System.out.println("Issue 27: what a cycle costs, beside the bare quorum of this run (CPU in µs per"
				+ " acquire+release cycle, a new key each cycle; JVM: this whole process; nodes: all together):");
		System.out.println();
		System.out.println("| per acquire+release cycle | this registry | bare quorum | ratio | target | met |");
		System.out.println("|---|---:|---:|---:|---|---|");
		costTarget("JVM CPU, 1 thread", ours.oneThreadCost.jvm(), bare.oneThreadCost.jvm(), 1.0, false);
		costTarget("JVM CPU, 16 threads", ours.sixteenThreadsCost.jvm(), bare.sixteenThreadsCost.jvm(), 0.8, false);
		costTarget("node CPU, 1 thread", ours.oneThreadCost.nodes(), bare.oneThreadCost.nodes(), 1.3, false);
		costTarget("node CPU, 16 threads", ours.sixteenThreadsCost.nodes(), bare.sixteenThreadsCost.nodes(), 1.25,
				false);
		costTarget("node commands, 1 thread", ours.oneThreadCost.nodeCommands(), bare.oneThreadCost.nodeCommands(),
				Double.NaN, false);
		costTarget("JVM bytes allocated, 1 thread", ours.oneThreadCost.jvmAllocated(),
				bare.oneThreadCost.jvmAllocated(), Double.NaN, false);
		costTarget("JVM bytes allocated, 16 threads", ours.sixteenThreadsCost.jvmAllocated(),
				bare.sixteenThreadsCost.jvmAllocated(), Double.NaN, false);
		costTarget("cycles/s, 1 thread", ours.oneThread.perSecond(), bare.oneThread.perSecond(), 0.95, true);
		if (twoJvms) {
			costTarget("2 JVMs x 4 threads, one key: acquisitions/s", ours.twoJvmOneKey.acquisitions.perSecond(),
					bare.twoJvmOneKey.acquisitions.perSecond(), 1.0, true);
			double share = fencing.share(FencingTally.TWO_JVMS_EIGHT_THREADS);
			System.out.printf(Locale.ROOT,
					"| same: acquisitions that needed a second fencing round (this JVM's) | %s (%.1f %%) | - | - |"
							+ " <= 5 %% | %s |%n",
					fencing.describe(FencingTally.TWO_JVMS_EIGHT_THREADS), share * 100, (share <= 0.05) ? "yes" : "no");
		}
		else {
			System.out.println("| 2 JVMs x 4 threads, one key | not measured (bench.two-jvms=false or the clocks did"
					+ " not compare) | | | >= 1.0x; second rounds <= 5 % | - |");
		}
		String herdName = String.format(Locale.ROOT, "%d JVMs x %d threads, one key, %d µs critical section", HERD_JVMS,
				HERD_THREADS_PER_JVM, HERD_SECTION.toNanos() / 1000);
		if (herd) {
			costTarget(herdName + ": sections/s", ours.herd.sectionsPerSecond(), bare.herd.sectionsPerSecond(), 1.0,
					true);
			System.out.printf(Locale.ROOT,
					"| same: attempts the first node refused (of those it saw) | %.0f %% (%,d of %,d) |"
							+ " %.0f %% (%,d of %,d) | - | <= 50 %% | %s |%n",
					ours.herd.refusedShare() * 100, ours.herd.refused(), ours.herd.attempts(),
					bare.herd.refusedShare() * 100, bare.herd.refused(), bare.herd.attempts(),
					(ours.herd.refusedShare() <= 0.5) ? "yes" : "no");
			System.out.printf(Locale.ROOT, "| same: overlapping holds (must be 0) | %d | %d | - | 0 | %s |%n",
					ours.herd.overlaps(), bare.herd.overlaps(), (ours.herd.overlaps() == 0) ? "yes" : "no");
		}
		else {
			System.out.println("| " + herdName + ": sections/s; refused attempts | not measured (bench.herd-jvms="
					+ HERD_JVMS + ", or a JVM was not ready) | | | >= 1.00x; refused <= 50 % | - |");
		}
	}

	private static void costTarget(String measure, double ours, double bare, double bound, boolean atLeast) {
		double ratio = ours / bare;
		String target = Double.isNaN(bound) ? "-"
				: String.format(Locale.ROOT, "%s %.2fx", atLeast ? ">=" : "<=", bound);
		String met = (Double.isNaN(bound) || !Double.isFinite(ratio)) ? "-"
				: ((atLeast ? ratio >= bound : ratio <= bound) ? "yes" : "no");
		System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", measure, format(ours), format(bare),
				Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.2fx", ratio) : "-", target, met);
	}

	private static void printCosts(List<Contender> contenders, Map<Contender, Figures> figures) {
		System.out.println();
		System.out.println("CPU per acquire+release cycle, µs (JVM: this whole process, of which JIT: its compiler"
				+ " threads; nodes: all of them together; node commands count those the scripts run; a node reads"
				+ " once per wake-up):");
		System.out.println();
		System.out.println(
				"| contender | threads | cycles/s | JVM user | JVM system | of which JIT | nodes user | nodes system"
						+ " | in all | node commands | node reads | JVM bytes allocated |");
		System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
		for (int threads : new int[] { 1, 16 }) {
			for (Contender contender : contenders) {
				Figures figure = figures.get(contender);
				CycleCost cost = (threads == 1) ? figure.oneThreadCost : figure.sixteenThreadsCost;
				double rate = (threads == 1) ? figure.oneThread.perSecond() : figure.sixteenThreads.perSecond();
				System.out.printf(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s |%n",
						contender.name(), threads, format(rate), format(cost.jvmUser()), format(cost.jvmSystem()),
						format(cost.jvmCompiler()), format(cost.nodesUser()), format(cost.nodesSystem()),
						format(cost.total()), cost.nodeCommands(), cost.nodeReads(), format(cost.jvmAllocated()));
			}
		}
	}

	private static void printTwoJvms(List<Contender> contenders, Map<Contender, Figures> figures) {
		System.out.println();
		System.out.println("Two JVMs (this one and a second one, each with its own instance of the contender):");
		System.out.println();
		header(contenders);
		row("1 thread in each JVM on one key, handoff p50 (µs)", contenders, figures,
				(f) -> f.twoJvmHandoff.percentileMicros(50), true);
		row("same: handoff p99 (µs)", contenders, figures, (f) -> f.twoJvmHandoff.percentileMicros(99), true);
		plain("same: handoffs measured", contenders, figures, (f) -> Integer.toString(f.twoJvmHandoff.size()));
		row("4 threads in each JVM on one key, acquisitions/s", contenders, figures,
				(f) -> f.twoJvmOneKey.acquisitions.perSecond(), false);
		row("same: acquisitions/s in this JVM", contenders, figures, (f) -> f.twoJvmOneKey.perJvm[0].perSecond(),
				false);
		row("same: acquisitions/s in the second JVM", contenders, figures, (f) -> f.twoJvmOneKey.perJvm[1].perSecond(),
				false);
		row("same: fairness, most/fewest acquisitions of a thread (all 8)", contenders, figures,
				(f) -> f.twoJvmOneKey.fairness(), true);
		row("same: handoff to the other JVM p50 (µs)", contenders, figures,
				(f) -> f.twoJvmOneKey.handoffs.percentileMicros(50), true);
		row("same: handoff to the other JVM p99 (µs)", contenders, figures,
				(f) -> f.twoJvmOneKey.handoffs.percentileMicros(99), true);
		plain("same: handoffs to the other JVM", contenders, figures,
				(f) -> Integer.toString(f.twoJvmOneKey.handoffs.size()));
		plain("same: share taken in the JVM that held before", contenders, figures,
				(f) -> String.format(Locale.ROOT, "%.0f %%", f.twoJvmOneKey.sameJvmShare() * 100));
		plain("same: holds overlapping across the JVMs (must be 0)", contenders, figures,
				(f) -> Long.toString(f.twoJvmOneKey.crossOverlaps()));
		plain("same: overlapping holds, within or across the JVMs (must be 0)", contenders, figures,
				(f) -> Long.toString(f.twoJvmOneKey.overlaps()));
		System.out.println();
		System.out
			.println("4 threads in each JVM on one key, acquisitions per thread (this JVM's, then the second's):");
		for (Contender contender : contenders) {
			long[] perThread = figures.get(contender).twoJvmOneKey.perThread();
			int half = perThread.length / 2;
			System.out.printf("  %-24s %s %s%n", contender.name(), Arrays.toString(Arrays.copyOf(perThread, half)),
					Arrays.toString(Arrays.copyOfRange(perThread, half, perThread.length)));
		}
	}

	private static void header(List<Contender> contenders) {
		StringBuilder header = new StringBuilder("| measure |");
		StringBuilder rule = new StringBuilder("|---|");
		for (Contender contender : contenders) {
			header.append(' ').append(contender.name()).append(" |");
			rule.append("---:|");
		}
		for (Contender other : contenders.subList(1, contenders.size())) {
			header.append(" registry / ").append(other.name()).append(" |");
			rule.append("---:|");
		}
		System.out.println(header);
		System.out.println(rule);
	}

	/**
	 * Prints a row without ratios.
	 */
	private static void plain(String measure, List<Contender> contenders, Map<Contender, Figures> figures,
			Function<Figures, String> value) {
		StringBuilder line = new StringBuilder("| ").append(measure).append(" |");
		for (Contender contender : contenders) {
			line.append(' ').append(value.apply(figures.get(contender))).append(" |");
		}
		System.out.println(line.append(" |".repeat(contenders.size() - 1)));
	}

	private static void row(String measure, List<Contender> contenders, Map<Contender, Figures> figures,
			ToDoubleFunction<Figures> value, boolean lowerIsBetter) {
		StringBuilder line = new StringBuilder("| ").append(measure).append(" |");
		double ours = value.applyAsDouble(figures.get(contenders.get(0)));
		for (Contender contender : contenders) {
			line.append(' ').append(format(value.applyAsDouble(figures.get(contender)))).append(" |");
		}
		for (Contender other : contenders.subList(1, contenders.size())) {
			double theirs = value.applyAsDouble(figures.get(other));
			String ratio = (theirs > 0 && Double.isFinite(theirs) && Double.isFinite(ours))
					? String.format(Locale.ROOT, "%.2fx", ours / theirs) : "-";
			line.append(' ')
				.append(ratio)
				.append(lowerIsBetter && !"-".equals(ratio) ? " (lower is better)" : "")
				.append(" |");
		}
		System.out.println(line);
	}

	private static void target(String target, double measured, double bound, String unit, boolean atLeast) {
		boolean met = atLeast ? measured >= bound : measured <= bound;
		String value = unit.equals("x") ? String.format(Locale.ROOT, "%.2fx", measured) : format(measured) + unit;
		System.out.printf("| %s | %s | %s |%n", target, value, met ? "yes" : "no");
	}

	private static String format(double value) {
		if (Double.isNaN(value)) {
			return "-";
		}
		if (Double.isInfinite(value)) {
			return "inf";
		}
		return (Math.abs(value) >= 100) ? String.format(Locale.ROOT, "%,.0f", value)
				: String.format(Locale.ROOT, "%.2f", value);
	}

	static String machine() {
		String cpu = "?";
		try {
			cpu = Files.readAllLines(Path.of("/proc/cpuinfo"))
				.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst()
				.orElse("?");
		}
		catch (IOException ex) {
			// not Linux: leave it unknown
		}
		return String.format(Locale.ROOT, "machine: %d CPU(s) (%s), %s, JDK %s (%s), %s",
				Runtime.getRuntime().availableProcessors(), cpu, System.getProperty("os.name"),
				System.getProperty("java.version"), System.getProperty("java.vm.name"),
				ManagementFactory.getRuntimeMXBean()
					.getInputArguments()
					.stream()
					.filter((arg) -> arg.startsWith("-Xm"))
					.findFirst()
					.orElse("default heap"));
	}

	private static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).trim();
		}
		catch (IOException ex) {
			return "?";
		}
	}

	/**
	 * The registry's fencing second rounds per kind of scenario: with the restart guard
	 * on, a new key's counters start at the whole second on every node and need no second
	 * round; contention (a failed attempt that counted on some nodes) does.
	 */
	private static final class FencingTally {

		static final String NEW_KEYS = "new key each cycle (1 and 16 threads):";

		static final String ONE_KEY = "one key, 8 and 2 threads in this JVM:";

		static final String TWO_JVMS = "one key, 2 JVMs x 1 thread (this JVM's registry):";

		static final String TWO_JVMS_EIGHT_THREADS = "one key, 2 JVMs x 4 threads (this JVM's registry):";

		static final String HERD = "one key, the herd (this JVM's registry):";

		private final RegistryContender registry;

		private final Map<String, long[]> counts = new LinkedHashMap<>();

		/**
		 * Returns the share of the acquisitions of a scenario that took a second round,
		 * or NaN if none was counted.
		 */
		double share(String scenario) {
			long[] count = this.counts.get(scenario);
			return (count == null || count[1] == 0) ? Double.NaN : count[0] / (double) count[1];
		}

		/**
		 * Returns "second rounds of acquisitions" for a scenario.
		 */
		String describe(String scenario) {
			long[] count = this.counts.getOrDefault(scenario, new long[2]);
			return String.format(Locale.ROOT, "%,d of %,d", count[0], count[1]);
		}

		FencingTally(RegistryContender registry) {
			this.registry = registry;
		}

		void count(Contender contender, String scenario, Run run) throws Exception {
			if (contender != this.registry) {
				run.run();
				return;
			}
			long rounds = this.registry.fencingRounds();
			long acquisitions = this.registry.acquisitions();
			run.run();
			long[] count = this.counts.computeIfAbsent(scenario, (name) -> new long[2]);
			count[0] += this.registry.fencingRounds() - rounds;
			count[1] += this.registry.acquisitions() - acquisitions;
		}

		void print() {
			this.counts.forEach((scenario, count) -> System.out.printf(Locale.ROOT, "  %-44s %d of %d acquisitions%n",
					scenario, count[0], count[1]));
		}

	}

	/**
	 * A part of a repetition.
	 */
	@FunctionalInterface
	interface Run {

		void run() throws Exception;

	}

}
