package io.github.redlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;

/**
 * Issue 40's table: what an uncontended acquire+release cycle on a new key costs this
 * registry with its restart guard off and on, each as a ratio to a bare Lettuce quorum
 * measured in the same run over the same nodes, interleaved (each repetition runs the
 * three in turn, starting with a different one). Per contender and repetition, one thread
 * and then sixteen loop cycles for {@code bench.seconds}; the cost is read around each
 * ({@link CycleCost}: the JVM's CPU from {@code /proc/self/stat}, the nodes' from
 * {@code INFO cpu}, their commands from {@code INFO stats}), the acquire calls' latency
 * is sampled at sixteen threads, and each registry's second fencing rounds are counted.
 * Each contender first loops its cycles for {@code bench.cost-warmup-seconds} on one
 * thread and half that on sixteen, so that the JIT compiler has settled. It asserts
 * nothing.
 * <p>
 * Run with {@code ./mvnw -B -ntp -pl redlock-benchmarks -am verify -DskipTests
 * -Dbenchmarks -Dbench.main=CycleCostBenchmark}; {@code bench.reps},
 * {@code bench.seconds}, {@code bench.cost-warmup-seconds}, {@code bench.nodes} and
 * {@code bench.ttl-ms} change the defaults ({@link BenchSettings}).
 */
public final class CycleCostBenchmark {

	private static final int MANY_THREADS = 16;

	private CycleCostBenchmark() {
	}

	/**
	 * Runs the measurement and prints it.
	 * @param args none
	 * @throws Exception if a run failed or got stuck
	 */
	public static void main(String[] args) throws Exception {
		BenchSettings settings = BenchSettings.fromSystemProperties();
		System.out.printf(Locale.ROOT, "%d nodes, %d reps of %d ms per scenario, warm-up %d ms, TTL %d ms%n",
				settings.nodes(), settings.reps(), settings.measure().toMillis(), settings.costWarmup().toMillis(),
				settings.ttl().toMillis());
		System.out.println("load average at start: " + loadAverage());
		long started = System.nanoTime();
		Costs costs = measure(settings, settings.nodes(), settings.costWarmup());
		System.out.println("load average at end: " + loadAverage());
		System.out.printf(Locale.ROOT, "run took %.0f s%n%n", (System.nanoTime() - started) / 1e9);
		print(costs, settings.nodes());
	}

	/**
	 * Measures the three contenders' cycles over {@code nodes} fresh nodes, each warmed
	 * up first for {@code warmup} on one thread and half that on sixteen.
	 */
	static Costs measure(BenchSettings settings, int nodes, Duration warmup) throws Exception {
		try (RedisFleet fleet = RedisFleet.start(nodes);
				RegistryContender off = new RegistryContender(fleet.uris(), settings.ttl(), false, "guard off");
				RegistryContender on = new RegistryContender(fleet.uris(), settings.ttl(), true, "guard on");
				BareQuorumContender bare = new BareQuorumContender(fleet.uris(), settings.ttl(),
						settings.bareRetry())) {
			Duration ready = settings.ttl().multipliedBy(2).plusSeconds(60);
			off.awaitUsable(ready);
			on.awaitUsable(ready);
			List<Contender> contenders = List.of(off, on, bare);
			Scenarios scenarios = new Scenarios(settings.hold(), settings.section());
			for (Contender contender : contenders) {
				scenarios.cycles(contender, 1, warmup, "w1:" + contender.name() + ":", new Figures.Rate());
				scenarios.cycles(contender, MANY_THREADS, warmup.dividedBy(2), "w16:" + contender.name() + ":",
						new Figures.Rate());
			}
			Map<Contender, Measured> measured = new LinkedHashMap<>();
			contenders.forEach((contender) -> measured.put(contender, new Measured()));
			List<RedisNode> fleetNodes = fleet.nodes();
			for (int rep = 1; rep <= settings.reps(); rep++) {
				for (int i = 0; i < contenders.size(); i++) {
					Contender contender = contenders.get((rep + i) % contenders.size());
					Measured m = measured.get(contender);
					String prefix = "r" + rep + ":" + contender.name() + ":";
					counted(contender, m, () -> m.oneCost.measure(fleetNodes, m.one,
							() -> scenarios.cycles(contender, 1, settings.measure(), prefix + "1:", m.one)));
					counted(contender, m, () -> m.manyCost.measure(fleetNodes, m.many, () -> scenarios
						.timedCycles(contender, MANY_THREADS, settings.measure(), prefix + "16:", m.many, m.latency)));
				}
				System.out.printf("%d nodes: rep %d of %d done%n", nodes, rep, settings.reps());
			}
			return new Costs(measured.get(off), measured.get(on), measured.get(bare));
		}
	}

	private static void counted(Contender contender, Measured measured, ComparisonBenchmark.Run run) throws Exception {
		if (!(contender instanceof RegistryContender registry)) {
			run.run();
			return;
		}
		long rounds = registry.fencingRounds();
		long acquisitions = registry.acquisitions();
		run.run();
		measured.secondRounds += registry.fencingRounds() - rounds;
		measured.acquisitions += registry.acquisitions() - acquisitions;
	}

	private static void print(Costs costs, int nodes) {
		Measured off = costs.off();
		Measured on = costs.on();
		Measured bare = costs.bare();
		System.out.println("Issue 40: per acquire+release cycle, a new key each cycle, each figure beside the bare"
				+ " quorum measured in the same run (ratios: this registry / the bare quorum):");
		System.out.println();
		System.out.println("| per cycle | guard off | guard on | bare quorum | off / bare | on / bare | target | met"
				+ " (off, on) |");
		System.out.println("|---|---:|---:|---:|---:|---:|---|---|");
		row("cycles/s, 1 thread", off, on, bare, (m) -> m.one.perSecond(), ">= 0.95x", 0.95, true);
		row("cycles/s, 16 threads", off, on, bare, (m) -> m.many.perSecond(), "-", Double.NaN, true);
		System.out.printf(Locale.ROOT,
				"| second fencing rounds, 1 and 16 threads | %s | %s | - | - | - | < 1 %% | %s," + " %s |%n",
				off.rounds(), on.rounds(), yes(off.roundShare() < 0.01), yes(on.roundShare() < 0.01));
		row("node commands, 1 thread (all " + nodes + " nodes)", off, on, bare, (m) -> m.oneCost.nodeCommands(),
				"<= 1.5x", 1.5, false);
		row("node commands, 16 threads (all " + nodes + " nodes)", off, on, bare, (m) -> m.manyCost.nodeCommands(), "-",
				Double.NaN, false);
		row("node CPU, 1 thread (µs)", off, on, bare, (m) -> m.oneCost.nodes(), "<= 1.1x", 1.1, false);
		row("node CPU, 16 threads (µs)", off, on, bare, (m) -> m.manyCost.nodes(), "<= 1.0x", 1.0, false);
		row("JVM CPU, 1 thread (µs)", off, on, bare, (m) -> m.oneCost.jvm(), "<= 0.9x", 0.9, false);
		row("JVM CPU, 16 threads (µs)", off, on, bare, (m) -> m.manyCost.jvm(), "<= 0.7x", 0.7, false);
		// where the 1-thread cycle's time goes: the kernel's share (wake-ups and socket
		// calls), and the node reads, one per wake-up of a node for a connection
		row("of which in the kernel, JVM, 1 thread (µs)", off, on, bare, (m) -> m.oneCost.jvmSystem(), "-", Double.NaN,
				false);
		row("node reads, 1 thread (all " + nodes + " nodes)", off, on, bare, (m) -> m.oneCost.nodeReads(), "-",
				Double.NaN, false);
		row("acquire latency p50, 16 threads (µs)", off, on, bare, (m) -> m.latency.percentileMicros(50), "-",
				Double.NaN, false);
		row("acquire latency p99, 16 threads (µs)", off, on, bare, (m) -> m.latency.percentileMicros(99), "<= 1.2x",
				1.2, false);
		row("acquire latency p99.9, 16 threads (µs)", off, on, bare, (m) -> m.latency.percentileMicros(99.9), "<= 1.2x",
				1.2, false);
		System.out.println();
		System.out.printf(Locale.ROOT,
				"JIT compiler threads, µs of the 1-thread cycle: guard off %s, guard on %s, bare quorum %s%n",
				format(off.oneCost.jvmCompiler()), format(on.oneCost.jvmCompiler()),
				format(bare.oneCost.jvmCompiler()));
		System.out.printf(Locale.ROOT,
				"JVM bytes allocated per 1-thread cycle: guard off %s, guard on %s, bare" + " quorum %s%n",
				format(off.oneCost.jvmAllocated()), format(on.oneCost.jvmAllocated()),
				format(bare.oneCost.jvmAllocated()));
		System.out.printf(Locale.ROOT,
				"acquire latencies sampled at 16 threads: guard off %,d, guard on %,d, bare" + " quorum %,d%n",
				off.latency.size(), on.latency.size(), bare.latency.size());
	}

	private static void row(String measure, Measured off, Measured on, Measured bare, ToDoubleFunction<Measured> value,
			String target, double bound, boolean atLeast) {
		double base = value.applyAsDouble(bare);
		double offRatio = value.applyAsDouble(off) / base;
		double onRatio = value.applyAsDouble(on) / base;
		String met = Double.isNaN(bound) ? "-" : yes(atLeast ? offRatio >= bound : offRatio <= bound) + ", "
				+ yes(atLeast ? onRatio >= bound : onRatio <= bound);
		System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s |%n", measure,
				format(value.applyAsDouble(off)), format(value.applyAsDouble(on)), format(base), ratio(offRatio),
				ratio(onRatio), target, met);
	}

	static String yes(boolean met) {
		return met ? "yes" : "no";
	}

	static String ratio(double ratio) {
		return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.2fx", ratio) : "-";
	}

	static String format(double value) {
		if (!Double.isFinite(value)) {
			return "-";
		}
		return (Math.abs(value) >= 100) ? String.format(Locale.ROOT, "%,.0f", value)
				: String.format(Locale.ROOT, "%.2f", value);
	}

	static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).trim();
		}
		catch (IOException ex) {
			return "?";
		}
	}

	/**
	 * What the three contenders' cycles gave over one set of nodes.
	 *
	 * @param off the registry with its restart guard off
	 * @param on the registry with its restart guard on
	 * @param bare the bare quorum
	 */
	record Costs(Measured off, Measured on, Measured bare) {

	}

	/**
	 * What one contender's cycles gave, summed over the repetitions.
	 */
	static final class Measured {

		final Figures.Rate one = new Figures.Rate();

		final Figures.Rate many = new Figures.Rate();

		final CycleCost oneCost = new CycleCost();

		final CycleCost manyCost = new CycleCost();

		final Samples latency = new Samples();

		long secondRounds;

		long acquisitions;

		double roundShare() {
			return (this.acquisitions == 0) ? Double.NaN : this.secondRounds / (double) this.acquisitions;
		}

		String rounds() {
			return String.format(Locale.ROOT, "%,d of %,d (%.2f %%)", this.secondRounds, this.acquisitions,
					roundShare() * 100);
		}

	}

}
