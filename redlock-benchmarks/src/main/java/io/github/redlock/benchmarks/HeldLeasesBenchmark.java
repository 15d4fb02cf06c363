package io.github.redlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.LeaseTimerCounts;
import io.github.redlock.engine.RedlockRegistry;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * Issue 40's first cost-growth item: {@code bench.leases} leases on distinct keys held by
 * one registry (restart guard on, the users' default) and kept extended by its watchdog,
 * as {@code acquireAsync(key, ttl, waitTime, true)} asks, for {@code bench.periods}
 * periods of a third of the TTL after one period to settle. Around that window it reads
 * what the held leases cost ({@link CycleCost}: this JVM's CPU, the nodes' CPU, commands
 * and reads), the extensions each node ran ({@code INFO commandstats}: the extension
 * script's {@code EVALSHA} calls; nothing else runs scripts meanwhile), the flushes that
 * reached the registry's sockets ({@link SocketFlushes}) and the lease timer's firings;
 * samples the first node's extensions every {@link #SLICE} to show how they spread over
 * time; and counts the leases lost (their {@code LeaseListener}, and {@code isHeld()} at
 * the end). The heap per lease is the used heap after a full collection with the leases
 * held (after the window, so that its pauses fall outside it), less the same before
 * acquiring, over their number. Last it releases every lease and says how long that took.
 * It asserts nothing.
 * <p>
 * Run with {@code ./mvnw -B -ntp -pl redlock-benchmarks -am verify -DskipTests
 * -Dbenchmarks -Dbench.main=HeldLeasesBenchmark}; {@code bench.leases},
 * {@code bench.periods}, {@code bench.held-ttl-ms} and {@code bench.nodes} change the
 * defaults.
 */
public final class HeldLeasesBenchmark {

	/** Acquisitions and releases in flight at once. */
	private static final int IN_FLIGHT = 256;

	/** How often the first node's extensions are sampled during the window. */
	private static final Duration SLICE = Duration.ofMillis(250);

	private static final Duration WAIT = Duration.ofSeconds(60);

	private HeldLeasesBenchmark() {
	}

	/**
	 * Runs the measurement and prints it.
	 * @param args none
	 * @throws Exception if a run failed or got stuck
	 */
	public static void main(String[] args) throws Exception {
		Settings settings = Settings.fromSystemProperties();
		Duration period = settings.ttl().dividedBy(3);
		System.out.printf(Locale.ROOT,
				"%,d leases held on %d nodes, TTL %d ms (extended every %d ms), measured over %d periods after one to"
						+ " settle%n",
				settings.leases(), settings.nodes(), settings.ttl().toMillis(), period.toMillis(), settings.periods());
		System.out.println("load average at start: " + CycleCostBenchmark.loadAverage());
		SocketFlushes flushes = new SocketFlushes();
		ClientResources resources = DefaultClientResources.builder().nettyCustomizer(flushes).build();
		try (RedisFleet fleet = RedisFleet.start(settings.nodes());
				RedlockRegistry registry = RedlockRegistry.builder()
					.nodes(fleet.uris())
					.restartGuard(true)
					.maxTtl(settings.ttl())
					.defaultTtl(settings.ttl())
					.clientResources(resources)
					.build()
					.start()) {
			RegistryContender.Usable usable = RegistryContender.awaitUsable(registry,
					settings.ttl().multipliedBy(2).plusSeconds(60));
			System.out.printf(Locale.ROOT, "nodes usable after %d ms%n", usable.waited().toMillis());
			Lease[] leases = new Lease[settings.leases()];
			Losses losses = new Losses();
			long heapBefore = usedHeapAfterFullGc();
			long acquiring = System.nanoTime();
			acquireAll(registry, leases, settings.ttl(), losses);
			long acquired = System.nanoTime() - acquiring;
			System.out.printf(Locale.ROOT, "acquired %,d leases in %.1f s (%,.0f a second); load average %s%n",
					leases.length, acquired / 1e9, leases.length * 1e9 / acquired, CycleCostBenchmark.loadAverage());
			sleep(period);
			Window window = Window.measure(registry, fleet.nodes(), flushes, leases.length,
					period.multipliedBy(settings.periods()));
			long lost = losses.count();
			int notHeld = 0;
			for (Lease lease : leases) {
				notHeld += lease.isHeld() ? 0 : 1;
			}
			System.out.println("load average at the end of the window: " + CycleCostBenchmark.loadAverage());
			// after the window, so that the full collections' pauses fall outside it
			long collecting = System.nanoTime();
			long heapHeld = usedHeapAfterFullGc();
			System.out.printf(Locale.ROOT, "full collections with the leases held took %d ms; leases lost since: %d%n",
					(System.nanoTime() - collecting) / 1_000_000, losses.count() - lost);
			long releasing = System.nanoTime();
			releaseAll(leases);
			long released = System.nanoTime() - releasing;
			System.out.println();
			window.print(settings, heapHeld - heapBefore, lost, notHeld);
			System.out.println("first loss: " + losses.first());
			System.out.printf(Locale.ROOT, "released %,d leases in %.1f s (%,.0f a second); still held: %d%n",
					leases.length, released / 1e9, leases.length * 1e9 / released, registry.heldLeases());
		}
		finally {
			resources.shutdown(0, 10, TimeUnit.SECONDS).get();
		}
	}

	/**
	 * Acquires a lease on each of {@code held.length} keys, {@link #IN_FLIGHT} at a time,
	 * each kept extended, with a listener that counts its loss.
	 */
	private static void acquireAll(RedlockRegistry registry, Lease[] held, Duration ttl, Losses losses)
			throws Exception {
		Semaphore inFlight = new Semaphore(IN_FLIGHT);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		for (int i = 0; i < held.length && failure.get() == null; i++) {
			inFlight.acquire();
			int index = i;
			registry.acquireAsync("held:" + i, ttl, WAIT, true).whenComplete((lease, ex) -> {
				if (ex != null) {
					failure.compareAndSet(null, ex);
				}
				else {
					lease.addListener((lost, cause) -> losses.add(cause.getMessage()));
					held[index] = lease;
				}
				inFlight.release();
			});
		}
		inFlight.acquire(IN_FLIGHT);
		if (failure.get() != null) {
			throw new IllegalStateException("An acquisition failed", failure.get());
		}
	}

	private static void releaseAll(Lease[] held) throws Exception {
		Semaphore inFlight = new Semaphore(IN_FLIGHT);
		for (Lease lease : held) {
			inFlight.acquire();
			lease.releaseAsync().whenComplete((ignored, ex) -> inFlight.release());
		}
		inFlight.acquire(IN_FLIGHT);
	}

	private static long usedHeapAfterFullGc() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	private static void sleep(Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

	/**
	 * Extension script calls (EVALSHA and EVAL) each node ran so far.
	 */
	private static long[] scriptCalls(List<RedisNode> nodes) {
		long[] calls = new long[nodes.size()];
		for (int i = 0; i < calls.length; i++) {
			calls[i] = scriptCalls(nodes.get(i));
		}
		return calls;
	}

	private static long scriptCalls(RedisNode node) {
		String stats = String.valueOf(node.call("INFO", "commandstats"));
		return calls(stats, "cmdstat_evalsha:") + calls(stats, "cmdstat_eval:");
	}

	private static long calls(String commandStats, String command) {
		return commandStats.lines()
			.filter((line) -> line.startsWith(command))
			.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(','))))
			.findFirst()
			.orElse(0);
	}

	/**
	 * The settings, from {@code bench.*} system properties.
	 *
	 * @param leases how many leases to hold
	 * @param periods how many thirds of the TTL the measured window lasts
	 * @param ttl the TTL of every lease, and the registry's {@code maxTtl}: 30 s by
	 * default, the registry's default TTL (at 10 s, the other benchmarks' TTL, 100,000
	 * leases need three times the extensions a second)
	 * @param nodes how many local nodes
	 */
	record Settings(int leases, int periods, Duration ttl, int nodes) {

		static Settings fromSystemProperties() {
			return new Settings(BenchSettings.intProperty("bench.leases", 100_000, 1),
					BenchSettings.intProperty("bench.periods", 4, 1),
					Duration.ofMillis(BenchSettings.intProperty("bench.held-ttl-ms", 30_000, 1_000)),
					BenchSettings.intProperty("bench.nodes", 5, 1));
		}

	}

	/**
	 * The leases lost, and why the first was.
	 */
	private static final class Losses {

		private final LongAdder count = new LongAdder();

		private final AtomicReference<String> first = new AtomicReference<>();

		void add(String why) {
			this.count.increment();
			this.first.compareAndSet(null, why);
		}

		long count() {
			return this.count.sum();
		}

		String first() {
			String why = this.first.get();
			return (why != null) ? why : "-";
		}

	}

	/**
	 * What the measured window saw.
	 */
	private static final class Window {

		private final int leases;

		private final double seconds;

		private final CycleCost cost = new CycleCost();

		private final Samples slices = new Samples();

		private long[] extensions = new long[0];

		private long firings;

		private long examined;

		private SocketFlushes.Window flushes = new SocketFlushes.Window(new long[0]);

		private Window(int leases, Duration length) {
			this.leases = leases;
			this.seconds = length.toNanos() / 1e9;
		}

		static Window measure(RedlockRegistry registry, List<RedisNode> nodes, SocketFlushes socketFlushes, int leases,
				Duration length) throws Exception {
			Window window = new Window(leases, length);
			Figures.Rate rate = new Figures.Rate();
			window.cost.measure(nodes, rate, () -> {
				long[] calls = scriptCalls(nodes);
				long[] flushed = socketFlushes.snapshot();
				long firings = LeaseTimerCounts.firings(registry);
				long examined = LeaseTimerCounts.examined(registry);
				window.sample(nodes.get(0), length);
				long[] callsAfter = scriptCalls(nodes);
				window.flushes = SocketFlushes.Window.between(flushed, socketFlushes.snapshot());
				window.firings = LeaseTimerCounts.firings(registry) - firings;
				window.examined = LeaseTimerCounts.examined(registry) - examined;
				window.extensions = new long[calls.length];
				for (int i = 0; i < calls.length; i++) {
					window.extensions[i] = callsAfter[i] - calls[i];
				}
				// the cost's figures are per lease over the window
				rate.add(leases, length.toNanos());
			});
			return window;
		}

		/** Samples the node's extensions in slices of {@link #SLICE} until the end. */
		private void sample(RedisNode node, Duration length) {
			long end = System.nanoTime() + length.toNanos();
			long last = scriptCalls(node);
			for (long next = System.nanoTime() + SLICE.toNanos(); next - end <= 0; next += SLICE.toNanos()) {
				sleep(Duration.ofNanos(Math.max(0, next - System.nanoTime())));
				long calls = scriptCalls(node);
				this.slices.add(calls - last);
				last = calls;
			}
			sleep(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
		}

		void print(Settings settings, long heapBytes, long lost, int notHeld) {
			long all = 0;
			long least = Long.MAX_VALUE;
			long most = 0;
			for (long calls : this.extensions) {
				all += calls;
				least = Math.min(least, calls);
				most = Math.max(most, calls);
			}
			int nodes = this.extensions.length;
			double perNode = all / (double) nodes;
			double expected = this.leases / (settings.ttl().toNanos() / 3e9);
			double jvmPerSecond = this.cost.jvm() * this.leases / this.seconds;
			double nodesPerSecond = this.cost.nodes() * this.leases / this.seconds;
			System.out.printf(Locale.ROOT, "Issue 40, held leases: %,d leases, TTL %d ms, window %.1f s (%d periods)%n",
					this.leases, settings.ttl().toMillis(), this.seconds, settings.periods());
			System.out.println();
			System.out.println("| measure | value |");
			System.out.println("|---|---:|");
			row("JVM CPU per held lease per second (µs/s)", number(this.cost.jvm() / this.seconds));
			row("JVM CPU, share of one core", percent(jvmPerSecond / 1e6));
			row("JVM CPU per quorum extension (µs)", number(jvmPerSecond / (perNode / this.seconds)));
			row("extensions sent per node per second (least-most node)", String.format(Locale.ROOT, "%s (%s-%s)",
					number(perNode / this.seconds), number(least / this.seconds), number(most / this.seconds)));
			row("extensions per lease per period (1.00: each extended every TTL/3)",
					String.format(Locale.ROOT, "%.2f", perNode / this.leases / settings.periods()));
			row("quorum extensions a second, expected (leases / (TTL/3))", number(expected));
			row("node CPU per second, all nodes (ms/s)", number(nodesPerSecond / 1000));
			row("node CPU per extension, each node (µs)", number(nodesPerSecond * this.seconds / all));
			row("node commands per extension, each node (script's inner commands included)",
					number(this.cost.nodeCommands() * this.leases / all));
			row("node reads per extension, each node",
					String.format(Locale.ROOT, "%.3f", this.cost.nodeReads() * this.leases / all));
			row("socket flushes per extension, each node",
					String.format(Locale.ROOT, "%.3f", this.flushes.flushes() / (double) all));
			row("commands per socket flush, mean / median command's flush / p90",
					String.format(Locale.ROOT, "%.1f / %d / %d",
							this.flushes.writes() / (double) Math.max(1, this.flushes.flushes()),
							this.flushes.writeWeightedPercentile(50), this.flushes.writeWeightedPercentile(90)));
			row("lease timer firings per second", number(this.firings / this.seconds));
			row("quorum extensions per timer firing", number(perNode / Math.max(1, this.firings)));
			row("leases looked at per timer firing", number(this.examined / (double) Math.max(1, this.firings)));
			row("first node's extensions per " + SLICE.toMillis() + " ms: mean / p10 / p50 / p90 / max",
					String.format(Locale.ROOT, "%s / %d / %d / %d / %d", number(this.slices.mean()),
							this.slices.percentile(10), this.slices.percentile(50), this.slices.percentile(90),
							this.slices.percentile(100)));
			row("heap per held lease (bytes, after a full GC)", number(heapBytes / (double) this.leases));
			row("leases lost (listener), from acquisition to the window's end", String.valueOf(lost));
			row("leases not held at the window's end", String.valueOf(notHeld));
			System.out.println();
			System.out.printf(Locale.ROOT, "JIT compiler threads: %s µs per lease over the window%n",
					number(this.cost.jvmCompiler()));
		}

		private static void row(String measure, String value) {
			System.out.printf(Locale.ROOT, "| %s | %s |%n", measure, value);
		}

		private static String number(double value) {
			return CycleCostBenchmark.format(value);
		}

		private static String percent(double share) {
			return String.format(Locale.ROOT, "%.1f %%", share * 100);
		}

	}

}
