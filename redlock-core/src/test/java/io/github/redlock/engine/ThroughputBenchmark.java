package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A quick harness, not a test: prints acquire+release cycles per second against 5 local
 * nodes. Excluded from the normal build; run it with
 * {@code ./mvnw -pl redlock-core -am verify -Dbenchmarks -Dtest=ThroughputBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("benchmark")
class ThroughputBenchmark {

	private static final Duration WARMUP = Duration.ofSeconds(3);

	private static final Duration MEASURE = Duration.ofSeconds(5);

	@Test
	void acquireReleaseCyclesPerSecond() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(5);
				RedlockRegistry registry = TestRegistries.builder(fleet).build().start()) {
			System.out.println("redis-server: " + io.github.redlock.embedded.RedisServerBinary.get());
			for (boolean freshKeys : new boolean[] { false, true }) {
				long roundsBefore = registry.fencingRounds();
				long acquisitionsBefore = registry.acquisitions();
				for (int threads : new int[] { 1, 4, 16 }) {
					run(registry, threads, WARMUP, freshKeys);
					double perSecond = run(registry, threads, MEASURE, freshKeys) / (MEASURE.toNanos() / 1e9);
					System.out.printf("acquire+release cycles/s, 5 nodes, %s, %2d thread(s): %,.0f%n",
							freshKeys ? "a new key each cycle" : "one key per thread", threads, perSecond);
				}
				System.out.printf("fencing second rounds: %d of %d acquisitions%n",
						registry.fencingRounds() - roundsBefore, registry.acquisitions() - acquisitionsBefore);
			}
		}

	}

	private static long run(RedlockRegistry registry, int threads, Duration duration, boolean freshKeys)
			throws Exception {
		LongAdder cycles = new LongAdder();
		AtomicLong next = new AtomicLong();
		long end = System.nanoTime() + duration.toNanos();
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			// one key per thread, or a new key each cycle (as an order id would be): no
			// contention either way, so this measures the engine
			String threadKey = "bench:" + t;
			workers.add(CompletableFuture.runAsync(() -> {
				try {
					while (System.nanoTime() < end) {
						String key = freshKeys ? "order:" + next.incrementAndGet() : threadKey;
						Lease lease = registry.acquire(key, Duration.ofSeconds(10), Duration.ZERO);
						lease.release();
						cycles.increment();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, runnable -> new Thread(runnable).start()));
		}
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).join();
		return cycles.sum();
	}

}
