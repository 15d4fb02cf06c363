package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisServerBinary;

/**
 * Issue 40's "how cost grows", items 2 and 3, each figure beside the bare quorum measured
 * in the same run. It asserts nothing.
 * <ol>
 * <li><b>Processes on one key</b>: the herd ({@link HerdScenario}) of 2, 4 and 8 JVMs
 * ({@code bench.growth-jvms}) of {@code bench.herd-threads} threads each (2), a
 * {@code bench.herd-section-us} critical section (1 ms), for the registry (its restart
 * guard as {@code bench.restart-guard} says: on) and the bare quorum's retry loop, over
 * {@code bench.nodes} nodes. The other JVMs all start at once, the largest count of them;
 * a smaller herd uses the first few, and the rest idle. Each repetition runs every count
 * for both contenders in turn for {@code bench.growth-herd-seconds}, after one discarded
 * round of {@code bench.warmup-seconds}. Per count: sections/s, the first node's attempts
 * and those it refused ({@link NodeAttempts}), and overlapping holds.</li>
 * <li><b>Nodes</b>: the uncontended cycle on a new key ({@link CycleCostBenchmark}'s
 * measurement: the registry with its guard off and on and the bare quorum, 1 thread and
 * 16, interleaved) over 3, 5 and 7 fresh nodes ({@code bench.growth-nodes}): cycles/s,
 * JVM CPU, node CPU and node commands per cycle. The first node count warms each
 * contender up for {@code bench.cost-warmup-seconds} (and half that on 16 threads); the
 * JIT compiler keeps its work for the next counts, which warm up a third of that.</li>
 * </ol>
 * <p>
 * Run with {@code ./mvnw -B -ntp -pl redlock-benchmarks -am verify -DskipTests
 * -Dbenchmarks -Dbench.main=GrowthBenchmark}; {@code bench.reps}, {@code bench.seconds}
 * (the cycles' scenarios) and the properties above change the defaults. An empty list
 * skips its part.
 */
public final class GrowthBenchmark {

	private static final int THREADS_PER_JVM = Integer.getInteger("bench.herd-threads", 2);

	private static final Duration SECTION = Duration.ofNanos(1000L * Integer.getInteger("bench.herd-section-us", 1000));

	private static final Duration HERD_DURATION = Duration
		.ofMillis(Math.round(1000 * Double.parseDouble(System.getProperty("bench.growth-herd-seconds", "4"))));

	private GrowthBenchmark() {
	}

	/**
	 * Runs both parts and prints their tables.
	 * @param args none
	 * @throws Exception if a run failed or got stuck
	 */
	public static void main(String[] args) throws Exception {
		BenchSettings settings = BenchSettings.fromSystemProperties();
		List<Integer> jvmCounts = counts("bench.growth-jvms", "2,4,8");
		List<Integer> nodeCounts = counts("bench.growth-nodes", "3,5,7");
		System.out.println(ComparisonBenchmark.machine() + ", redis-server " + RedisServerBinary.get().version());
		System.out.println(settings.describe());
		System.out.println("load average at start: " + CycleCostBenchmark.loadAverage());
		long started = System.nanoTime();
		Map<Integer, Figures.Herd[]> herds = jvmCounts.isEmpty() ? Map.of() : herds(settings, jvmCounts);
		System.out.println("load average after the herds: " + CycleCostBenchmark.loadAverage());
		Map<Integer, CycleCostBenchmark.Costs> costs = new LinkedHashMap<>();
		Duration warmup = settings.costWarmup();
		for (int nodes : nodeCounts) {
			costs.put(nodes, CycleCostBenchmark.measure(settings, nodes, warmup));
			warmup = settings.costWarmup().dividedBy(3);
		}
		System.out.println("load average at end: " + CycleCostBenchmark.loadAverage());
		System.out.printf(Locale.ROOT, "run took %.0f s%n%n", (System.nanoTime() - started) / 1e9);
		if (!herds.isEmpty()) {
			printHerds(herds);
		}
		if (!costs.isEmpty()) {
			printCosts(costs);
		}
	}

	/**
	 * Runs the herds; returns each count's figures, the registry's then the bare
	 * quorum's, or none when the other JVMs were not all ready.
	 */
	private static Map<Integer, Figures.Herd[]> herds(BenchSettings settings, List<Integer> jvmCounts)
			throws Exception {
		int most = Collections.max(jvmCounts);
		Duration ready = settings.ttl().multipliedBy(2).plusSeconds(60);
		long starting = System.nanoTime();
		try (RedisFleet fleet = RedisFleet.start(settings.nodes());
				HerdJvms others = new HerdJvms(settings, fleet.uris(), most - 1);
				ContenderSet contenderSet = new ContenderSet(fleet.uris(), settings);
				NodeAttempts firstNode = new NodeAttempts(fleet.node(0))) {
			contenderSet.registry().awaitUsable(ready);
			if (!others.ready(ready)) {
				System.out.printf("the herds are not measured: %d other JVMs did not all start%n", most - 1);
				return Map.of();
			}
			System.out.printf(Locale.ROOT, "%d JVMs ready, their registries counting every node, after %.1f s%n", most,
					(System.nanoTime() - starting) / 1e9);
			// the registry and the bare quorum, indices the other JVMs' sets share
			List<Contender> contenders = contenderSet.all().subList(0, 2);
			Map<Integer, HerdScenario> scenarios = new LinkedHashMap<>();
			Map<Integer, Figures.Herd[]> figures = new LinkedHashMap<>();
			for (int jvms : jvmCounts) {
				scenarios.put(jvms, new HerdScenario(others.jvms().subList(0, jvms - 1), SECTION, firstNode));
				figures.put(jvms, new Figures.Herd[] { new Figures.Herd(), new Figures.Herd() });
			}
			if (!settings.warmup().isZero()) {
				runHerds(scenarios, contenders, settings.warmup(), "w", 0, new LinkedHashMap<>());
			}
			for (int rep = 1; rep <= settings.reps(); rep++) {
				runHerds(scenarios, contenders, HERD_DURATION, "r" + rep, rep, figures);
				System.out.printf("herds: rep %d of %d done%n", rep, settings.reps());
			}
			return figures;
		}
	}

	private static void runHerds(Map<Integer, HerdScenario> scenarios, List<Contender> contenders, Duration duration,
			String rep, int rotation, Map<Integer, Figures.Herd[]> into) throws Exception {
		for (Map.Entry<Integer, HerdScenario> herd : scenarios.entrySet()) {
			int jvms = herd.getKey();
			for (int i = 0; i < contenders.size(); i++) {
				int index = (i + rotation) % contenders.size();
				Contender contender = contenders.get(index);
				Figures.Herd figures = into.containsKey(jvms) ? into.get(jvms)[index] : new Figures.Herd();
				String key = "growth:" + contender.name().replaceAll("[^A-Za-z0-9]", "") + ":" + rep + ":j" + jvms;
				herd.getValue().run(index, contender, THREADS_PER_JVM, duration, key, figures);
			}
		}
	}

	private static void printHerds(Map<Integer, Figures.Herd[]> herds) {
		System.out.printf(Locale.ROOT,
				"Processes on one key: JVMs x %d threads, a %d µs critical section, the registry beside the bare"
						+ " quorum's retry loop (target: sections/s >= 1.0x the bare quorum at 8 JVMs); attempts are"
						+ " the first node's, granted and refused there:%n%n",
				THREADS_PER_JVM, SECTION.toNanos() / 1000);
		System.out.println("| JVMs | sections/s: registry | bare quorum | registry / bare | attempts refused: registry"
				+ " | bare quorum | sections <= attempts (registry, bare) | overlapping holds (must be 0) |");
		System.out.println("|---:|---:|---:|---:|---:|---:|---|---:|");
		for (Map.Entry<Integer, Figures.Herd[]> entry : herds.entrySet()) {
			Figures.Herd ours = entry.getValue()[0];
			Figures.Herd bare = entry.getValue()[1];
			System.out.printf(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s, %s | %d, %d |%n", entry.getKey(),
					CycleCostBenchmark.format(ours.sectionsPerSecond()),
					CycleCostBenchmark.format(bare.sectionsPerSecond()),
					CycleCostBenchmark.ratio(ours.sectionsPerSecond() / bare.sectionsPerSecond()), refused(ours),
					refused(bare), CycleCostBenchmark.yes(ours.sections() <= ours.attempts()),
					CycleCostBenchmark.yes(bare.sections() <= bare.attempts()), ours.overlaps(), bare.overlaps());
		}
		System.out.println();
		System.out.println("sections (registry, bare quorum): " + String.join("; ",
				herds.entrySet()
					.stream()
					.map((entry) -> String.format(Locale.ROOT, "%d JVMs %,d, %,d", entry.getKey(),
							entry.getValue()[0].sections(), entry.getValue()[1].sections()))
					.toList()));
		System.out.println();
		System.out.println("Acquire latency in the herds, from the call to the grant (each JVM's own clock), in µs"
				+ " (target: p99 and p99.9 <= 1.2x the bare quorum's):");
		System.out.println();
		System.out.println("| JVMs | p50: registry | bare quorum | p99: registry | bare quorum | registry / bare |"
				+ " p99.9: registry | bare quorum | registry / bare | met (p99, p99.9) |");
		System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
		for (Map.Entry<Integer, Figures.Herd[]> entry : herds.entrySet()) {
			Samples ours = entry.getValue()[0].latency;
			Samples bare = entry.getValue()[1].latency;
			double p99 = ours.percentileMicros(99) / bare.percentileMicros(99);
			double p999 = ours.percentileMicros(99.9) / bare.percentileMicros(99.9);
			System.out.printf(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s |%n", entry.getKey(),
					CycleCostBenchmark.format(ours.percentileMicros(50)),
					CycleCostBenchmark.format(bare.percentileMicros(50)),
					CycleCostBenchmark.format(ours.percentileMicros(99)),
					CycleCostBenchmark.format(bare.percentileMicros(99)), CycleCostBenchmark.ratio(p99),
					CycleCostBenchmark.format(ours.percentileMicros(99.9)),
					CycleCostBenchmark.format(bare.percentileMicros(99.9)), CycleCostBenchmark.ratio(p999),
					CycleCostBenchmark.yes(p99 <= 1.2), CycleCostBenchmark.yes(p999 <= 1.2));
		}
		System.out.println();
	}

	private static String refused(Figures.Herd herd) {
		return String.format(Locale.ROOT, "%,d of %,d (%.0f %%)", herd.refused(), herd.attempts(),
				herd.refusedShare() * 100);
	}

	private static void printCosts(Map<Integer, CycleCostBenchmark.Costs> costs) {
		System.out.println("Nodes: per acquire+release cycle on a new key, the registry with its restart guard off and"
				+ " on beside the bare quorum (CPU in µs; JVM: this whole process; nodes and their commands: all of"
				+ " them together):");
		System.out.println();
		System.out.println("| nodes | per cycle | guard off | guard on | bare quorum | off / bare | on / bare |");
		System.out.println("|---:|---|---:|---:|---:|---:|---:|");
		for (Map.Entry<Integer, CycleCostBenchmark.Costs> entry : costs.entrySet()) {
			int nodes = entry.getKey();
			CycleCostBenchmark.Costs cost = entry.getValue();
			row(nodes, "cycles/s, 1 thread", cost, (m) -> m.one.perSecond());
			row(nodes, "cycles/s, 16 threads", cost, (m) -> m.many.perSecond());
			row(nodes, "JVM CPU, 1 thread", cost, (m) -> m.oneCost.jvm());
			row(nodes, "JVM CPU, 16 threads", cost, (m) -> m.manyCost.jvm());
			row(nodes, "node CPU, 1 thread", cost, (m) -> m.oneCost.nodes());
			row(nodes, "node CPU, 16 threads", cost, (m) -> m.manyCost.nodes());
			row(nodes, "node commands, 1 thread", cost, (m) -> m.oneCost.nodeCommands());
		}
		System.out.println();
		System.out.println("second fencing rounds on new keys (guard off; guard on): " + String.join("; ",
				costs.entrySet()
					.stream()
					.map((entry) -> entry.getKey() + " nodes " + entry.getValue().off().rounds() + ", "
							+ entry.getValue().on().rounds())
					.toList()));
	}

	private static void row(int nodes, String measure, CycleCostBenchmark.Costs cost,
			ToDoubleFunction<CycleCostBenchmark.Measured> value) {
		double off = value.applyAsDouble(cost.off());
		double on = value.applyAsDouble(cost.on());
		double bare = value.applyAsDouble(cost.bare());
		System.out.printf(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s |%n", nodes, measure,
				CycleCostBenchmark.format(off), CycleCostBenchmark.format(on), CycleCostBenchmark.format(bare),
				CycleCostBenchmark.ratio(off / bare), CycleCostBenchmark.ratio(on / bare));
	}

	private static List<Integer> counts(String property, String defaultValue) {
		String value = System.getProperty(property, defaultValue).trim();
		List<Integer> counts = new ArrayList<>();
		if (value.isEmpty()) {
			return counts;
		}
		for (String count : value.split(",")) {
			int parsed;
			try {
				parsed = Integer.parseInt(count.trim());
			}
			catch (NumberFormatException ex) {
				parsed = 0;
			}
			if (parsed < (property.endsWith("jvms") ? 2 : 1)) {
				throw new IllegalArgumentException("-D" + property + "=" + value + " is not a list of counts such as "
						+ defaultValue + " (a herd needs 2 JVMs at least)");
			}
			counts.add(parsed);
		}
		return counts;
	}

}
