package io.github.redlock.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisServerBinary;

/**
 * Runs, in one JVM over the same local {@code redis-server} nodes, this project's
 * registry, a bare Lettuce quorum, {@code RedissonRedLock} and Redisson's single-node
 * {@code RLock}, interleaved (each repetition runs every scenario for every contender in
 * turn, starting with a different contender), and prints a Markdown table of the figures,
 * the registry's ratios to each, and issue 15's targets next to the measured ratios. It
 * asserts nothing.
 * <p>
 * Run with {@code ./mvnw -B -pl redlock-benchmarks -am verify -DskipTests -Dbenchmarks};
 * system properties (Maven {@code -D} options) {@code bench.reps}, {@code bench.seconds},
 * {@code bench.warmup-seconds}, {@code bench.nodes}, {@code bench.ttl-ms},
 * {@code bench.hold-ms} and {@code bench.bare-retry-ms} change the defaults.
 */
public final class ComparisonBenchmark {

	private static final int CONTENDING_THREADS = 8;

	private ComparisonBenchmark() {
	}

	/**
	 * Runs the comparison and prints it.
	 * @param args none
	 * @throws Exception if a run failed or got stuck
	 */
	public static void main(String[] args) throws Exception {
		int reps = intProperty("bench.reps", 3, 1);
		Duration measure = Duration.ofMillis(Math.round(doubleProperty("bench.seconds", 2, 0.1) * 1000));
		Duration warmup = Duration.ofMillis(Math.round(doubleProperty("bench.warmup-seconds", 1, 0) * 1000));
		int nodeCount = intProperty("bench.nodes", 5, 1);
		Duration ttl = Duration.ofMillis(intProperty("bench.ttl-ms", 10_000, 1_000));
		Duration hold = Duration.ofMillis(intProperty("bench.hold-ms", 5, 0));
		Duration bareRetry = Duration.ofMillis(intProperty("bench.bare-retry-ms", 1, 1));

		System.out.println(machine());
		System.out.printf(Locale.ROOT,
				"settings: %d node(s), %d rep(s) of %s per scenario and contender, warm-up %s, TTL %s,"
						+ " 2-thread hold %s, bare quorum retry %s-%s%n",
				nodeCount, reps, measure, warmup, ttl, hold, bareRetry, bareRetry.multipliedBy(2));
		System.out.println("load average at start: " + loadAverage());
		long started = System.nanoTime();
		try (RedisFleet fleet = RedisFleet.start(nodeCount);
				RegistryContender registry = new RegistryContender(fleet.uris(), ttl);
				BareQuorumContender bare = new BareQuorumContender(fleet.uris(), ttl, bareRetry);
				RedissonContenders redisson = new RedissonContenders(fleet.uris(), ttl)) {
			System.out.println("redis-server: " + fleet.node(0)
				.call("INFO", "server")
				.toString()
				.lines()
				.filter((line) -> line.startsWith("redis_version"))
				.findFirst()
				.orElse("?") + ", " + RedisServerBinary.get().version());
			List<Contender> contenders = List.of(registry, bare, redisson.redLock(), redisson.singleNode());
			Map<Contender, Figures> figures = new LinkedHashMap<>();
			contenders.forEach((contender) -> figures.put(contender, new Figures()));
			Scenarios scenarios = new Scenarios(hold);
			if (!warmup.isZero()) {
				Map<Contender, Figures> discarded = new LinkedHashMap<>();
				contenders.forEach((contender) -> discarded.put(contender, new Figures()));
				runRep(scenarios, contenders, discarded, warmup, "warmup", 0);
			}
			long roundsBefore = registry.fencingRounds();
			long acquisitionsBefore = registry.acquisitions();
			for (int rep = 1; rep <= reps; rep++) {
				runRep(scenarios, contenders, figures, measure, "rep" + rep, rep);
				System.out.printf("rep %d of %d done%n", rep, reps);
			}
			System.out.printf(Locale.ROOT, "registry fencing second rounds: %d of %d acquisitions%n",
					registry.fencingRounds() - roundsBefore, registry.acquisitions() - acquisitionsBefore);
			System.out.println("load average at end: " + loadAverage());
			System.out.printf(Locale.ROOT, "run took %.0f s%n%n", (System.nanoTime() - started) / 1e9);
			print(contenders, figures);
		}
	}

	private static void runRep(Scenarios scenarios, List<Contender> contenders, Map<Contender, Figures> figures,
			Duration duration, String rep, int rotation) throws Exception {
		List<Contender> order = new ArrayList<>(contenders);
		java.util.Collections.rotate(order, -rotation);
		for (Contender contender : order) {
			scenarios.cycles(contender, 1, duration, key(contender, rep, "c1:"), figures.get(contender).oneThread);
		}
		for (Contender contender : order) {
			scenarios.cycles(contender, 16, duration, key(contender, rep, "c16:"),
					figures.get(contender).sixteenThreads);
		}
		for (Contender contender : order) {
			scenarios.oneKey(contender, CONTENDING_THREADS, duration, key(contender, rep, "k8"),
					figures.get(contender).oneKey);
		}
		for (Contender contender : order) {
			scenarios.handoff(contender, duration, key(contender, rep, "k2"), figures.get(contender).handoff);
		}
	}

	private static String key(Contender contender, String rep, String scenario) {
		return "bench:" + contender.name().replaceAll("[^A-Za-z0-9]", "") + ":" + rep + ":" + scenario;
	}

	private static void print(List<Contender> contenders, Map<Contender, Figures> figures) {
		Contender registry = contenders.get(0);
		List<Contender> others = contenders.subList(1, contenders.size());
		StringBuilder header = new StringBuilder("| measure |");
		StringBuilder rule = new StringBuilder("|---|");
		for (Contender contender : contenders) {
			header.append(' ').append(contender.name()).append(" |");
			rule.append("---:|");
		}
		for (Contender other : others) {
			header.append(" registry / ").append(other.name()).append(" |");
			rule.append("---:|");
		}
		System.out.println(header);
		System.out.println(rule);
		row("1 thread, acquire+release cycles/s", contenders, figures, (f) -> f.oneThread.perSecond(), false);
		row("16 threads, cycles/s", contenders, figures, (f) -> f.sixteenThreads.perSecond(), false);
		row("8 threads on one key, acquisitions/s", contenders, figures, (f) -> f.oneKey.acquisitions.perSecond(),
				false);
		row("same: handoff to another thread p50 (µs)", contenders, figures, (f) -> micros(f.oneKey.handoffs, 50),
				true);
		row("same: handoff p99 (µs)", contenders, figures, (f) -> micros(f.oneKey.handoffs, 99), true);
		row("same: fairness, most/fewest acquisitions of a thread", contenders, figures, (f) -> f.oneKey.fairness(),
				true);
		StringBuilder share = new StringBuilder("| same: share re-acquired by the releasing thread |");
		StringBuilder overlaps = new StringBuilder("| same: overlapping holds (must be 0) |");
		for (Contender contender : contenders) {
			share.append(String.format(Locale.ROOT, " %.0f %% |", figures.get(contender).oneKey.selfShare() * 100));
			overlaps.append(' ').append(figures.get(contender).oneKey.overlaps()).append(" |");
		}
		System.out.println(share.append(" |".repeat(others.size())));
		System.out.println(overlaps.append(" |".repeat(others.size())));
		row("2 threads on one key, handoff p50 (µs)", contenders, figures, (f) -> micros(f.handoff, 50), true);
		row("same: handoff p99 (µs)", contenders, figures, (f) -> micros(f.handoff, 99), true);
		StringBuilder samples = new StringBuilder("| same: handoffs measured |");
		for (Contender contender : contenders) {
			samples.append(' ').append(figures.get(contender).handoff.size()).append(" |");
		}
		System.out.println(samples.append(" |".repeat(others.size())));

		System.out.println();
		System.out.println("8 threads on one key, acquisitions per thread:");
		for (Contender contender : contenders) {
			System.out.printf("  %-24s %s%n", contender.name(),
					Arrays.toString(figures.get(contender).oneKey.perThread()));
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
		target("same: handoff p50 <= 300 µs", micros(ours.oneKey.handoffs, 50), 300, " µs", false);
		target("2-thread handoff p50 <= 1 ms, one JVM", micros(ours.handoff, 50), 1000, " µs", false);
		System.out.println("| 2-thread handoff p50 <= 2 ms, two JVMs | not measured here | - |");
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

	private static double micros(Samples samples, double percent) {
		long nanos = samples.percentile(percent);
		return (nanos == -1) ? Double.NaN : nanos / 1000.0;
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

	private static String machine() {
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

	private static int intProperty(String name, int defaultValue, int least) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			return defaultValue;
		}
		try {
			int parsed = Integer.parseInt(value.trim());
			if (parsed >= least) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("-D" + name + "=" + value + " is not a whole number of at least " + least
				+ "; leave it out for the default, " + defaultValue);
	}

	private static double doubleProperty(String name, double defaultValue, double least) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			return defaultValue;
		}
		try {
			double parsed = Double.parseDouble(value.trim());
			if (parsed >= least) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("-D" + name + "=" + value + " is not a number of at least " + least
				+ "; leave it out for the default, " + defaultValue);
	}

}
