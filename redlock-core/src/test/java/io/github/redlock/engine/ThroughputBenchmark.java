package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
				RedlockRegistry registry = RedlockRegistry.builder()
					.nodes(fleet.uris())
					.restartGuard(false) // fresh nodes
					.build()
					.start()) {
			System.out.println("redis-server: " + io.github.redlock.embedded.RedisServerBinary.get());
			for (int threads : new int[] { 1, 4, 16 }) {
				run(registry, threads, WARMUP);
				double perSecond = run(registry, threads, MEASURE) / (MEASURE.toNanos() / 1e9);
				System.out.printf("acquire+release cycles/s, 5 nodes, %2d thread(s): %,.0f%n", threads, perSecond);
			}
			System.out.printf("fencing second rounds: %d of %d acquisitions%n", registry.fencingRounds(),
					registry.acquisitions());
		}

	}

	private static long run(RedlockRegistry registry, int threads, Duration duration) throws Exception {
		LongAdder cycles = new LongAdder();
		long end = System.nanoTime() + duration.toNanos();
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String key = "bench:" + t; // one key per thread: measures the engine, not
										// contention
			workers.add(CompletableFuture.runAsync(() -> {
				try {
					while (System.nanoTime() < end) {
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
