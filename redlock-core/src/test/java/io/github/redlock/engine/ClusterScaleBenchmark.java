package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisCluster;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.embedded.RedisServerBinary;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A harness, not a test: prints what a quorum of three cluster members costs each master
 * with 1, 2 and 3 masters per member, beside a fleet of three single masters: cycles per
 * second, and commands per master per cycle (from each server's
 * {@code total_commands_processed}). On a 2-core machine every server shares the same
 * cores, so cycles per second cannot grow with masters here; what shows scale-out is the
 * load on each master, which falls as the slots spread. Run it with
 * {@code ./mvnw -pl redlock-core -am verify -Dbenchmarks -Dtest=ClusterScaleBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("benchmark")
class ClusterScaleBenchmark {

	private static final Duration WARMUP = Duration.ofSeconds(3);

	private static final Duration MEASURE = Duration.ofSeconds(6);

	private static final int THREADS = 16;

	@Test
	void commandsPerMasterPerCycle() throws Exception {
		System.out.println("redis-server: " + RedisServerBinary.get() + ", " + THREADS
				+ " threads, a new key each cycle, restart guard off");
		try (RedisFleet fleet = RedisFleet.start(3)) {
			measure("3 single masters", TestRegistries.builder(fleet), fleet.nodes());
		}
		for (int masters = 1; masters <= 3; masters++) {
			List<RedisCluster> clusters = new ArrayList<>();
			try {
				RedlockRegistry.Builder builder = RedlockRegistry.builder().restartGuard(false);
				List<RedisNode> servers = new ArrayList<>();
				for (int i = 0; i < 3; i++) {
					RedisCluster cluster = RedisCluster.start("bench" + i, masters, 0,
							RedisCluster.DEFAULT_NODE_TIMEOUT);
					clusters.add(cluster);
					builder.cluster(cluster.seedUris().toArray(String[]::new));
					servers.addAll(cluster.masters());
				}
				measure("3 clusters of " + masters + " master(s)", builder, servers);
			}
			finally {
				clusters.forEach(RedisCluster::close);
			}
		}
	}

	private static void measure(String what, RedlockRegistry.Builder builder, List<RedisNode> masters)
			throws Exception {
		try (RedlockRegistry registry = builder.build().start()) {
			run(registry, WARMUP);
			long[] before = commands(masters);
			long cycles = run(registry, MEASURE);
			long[] after = commands(masters);
			long total = 0;
			long busiest = 0;
			for (int i = 0; i < masters.size(); i++) {
				long delta = after[i] - before[i];
				total += delta;
				busiest = Math.max(busiest, delta);
			}
			double seconds = MEASURE.toNanos() / 1e9;
			System.out.printf(
					"%-26s %,8.0f cycles/s; commands per cycle: %.1f per member, %.2f on the average master,"
							+ " %.2f on the busiest; commands/s on the busiest master %,.0f%n",
					what, cycles / seconds, total / 3.0 / cycles, (double) total / masters.size() / cycles,
					(double) busiest / cycles, busiest / seconds);
		}
	}

	private static long[] commands(List<RedisNode> masters) {
		long[] counts = new long[masters.size()];
		for (int i = 0; i < counts.length; i++) {
			String info = String.valueOf(masters.get(i).call("INFO", "stats"));
			int start = info.indexOf("total_commands_processed:") + "total_commands_processed:".length();
			int end = info.indexOf('\r', start);
			counts[i] = Long.parseLong(info.substring(start, (end < 0) ? info.length() : end).trim());
		}
		return counts;
	}

	private static long run(RedlockRegistry registry, Duration duration) {
		LongAdder cycles = new LongAdder();
		AtomicLong next = new AtomicLong();
		long end = System.nanoTime() + duration.toNanos();
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			workers.add(CompletableFuture.runAsync(() -> {
				while (System.nanoTime() < end) {
					// refused on a loaded machine now and then (a node timed out): not a
					// cycle, and not a reason to stop
					Optional<Lease> lease = registry.tryAcquire("order:" + next.incrementAndGet(),
							Duration.ofSeconds(10));
					if (lease.isPresent()) {
						lease.get().release();
						cycles.increment();
					}
				}
			}, (runnable) -> new Thread(runnable).start()));
		}
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).join();
		return cycles.sum();
	}

}
