package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redlock.Lease;
import io.github.redlock.LockSemaphore;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.engine.RedlockRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Read-write locks and semaphores beside Redisson's single-master {@code RReadWriteLock}
 * and {@code RPermitExpirableSemaphore}: cycles (acquire, hold {@link #HOLD}, release)
 * per second and their latency, with {@link #THREADS} threads on one key, this project's
 * registry on five local nodes (a quorum of three), Redisson on the first of them. It
 * prints figures and asserts nothing. Redisson's locks live on one node: no quorum, no
 * fencing token, no restart guard; the figures show what the quorum costs, not a
 * like-for-like race.
 * <p>
 * Run with {@code ./mvnw -B -pl redlock-benchmarks -am test -Dbenchmarks
 * -Dtest=ReadWriteSemaphoreBenchmark -Dsurefire.failIfNoSpecifiedTests=false}
 * ({@code test}, not {@code verify}, which would also run the comparison benchmark);
 * {@code -Dbench.seconds=N} sets each scenario's length (default 5).
 */
@Tag("benchmark")
class ReadWriteSemaphoreBenchmark {

	private static final int THREADS = 4;

	private static final Duration HOLD = Duration.ofMillis(1);

	private static final Duration TTL = Duration.ofSeconds(10);

	private static final Duration SECONDS = Duration.ofSeconds(Long.getLong("bench.seconds", 5));

	@Test
	void readWriteLocksAndSemaphoresBesideRedisson() throws Exception {
		try (RedisFleet fleet = RedisFleet.start(5);
				RedlockRegistry registry = RedlockRegistry.builder()
					.nodes(fleet.uris())
					.restartGuard(false) // fresh nodes; the guard costs nothing per cycle
					.build()
					.start()) {
			Config config = new Config();
			config.setCodec(StringCodec.INSTANCE);
			config.useSingleServer()
				.setAddress(fleet.uris().get(0))
				.setConnectionPoolSize(16)
				.setConnectionMinimumIdleSize(4);
			RedissonClient redisson = Redisson.create(config);
			try {
				RReadWriteLock redissonLock = redisson.getReadWriteLock("bench-rw-redisson");
				RPermitExpirableSemaphore redissonSemaphore = redisson
					.getPermitExpirableSemaphore("bench-sem-redisson");
				redissonSemaphore.trySetPermits(2);
				LockSemaphore semaphore = registry.semaphore("bench-sem", 2);
				List<String> rows = new ArrayList<>();
				for (int rep = 0; rep < 2; rep++) {
					String label = (rep == 0) ? "warm-up" : "measured";
					List<String> measured = List
						.of(run(label, "read lock, " + THREADS + " readers, redlock (5 nodes)", () -> {
							Lease lease = registry.acquireRead("bench-rw", TTL, TTL);
							hold();
							lease.release();
						}), run(label, "read lock, " + THREADS + " readers, Redisson RReadWriteLock (1 node)", () -> {
							redissonLock.readLock().lock(TTL.toMillis(), TimeUnit.MILLISECONDS);
							hold();
							redissonLock.readLock().unlock();
						}), run(label, "write lock, " + THREADS + " writers, redlock (5 nodes)", () -> {
							Lease lease = registry.acquireWrite("bench-rw", TTL, TTL);
							hold();
							lease.release();
						}), run(label, "write lock, " + THREADS + " writers, Redisson RReadWriteLock (1 node)", () -> {
							redissonLock.writeLock().lock(TTL.toMillis(), TimeUnit.MILLISECONDS);
							hold();
							redissonLock.writeLock().unlock();
						}), run(label, "semaphore of 2, " + THREADS + " threads, redlock (5 nodes)", () -> {
							Lease permit = semaphore.acquire(TTL, TTL);
							hold();
							permit.release();
						}), run(label,
								"semaphore of 2, " + THREADS + " threads, Redisson RPermitExpirableSemaphore (1 node)",
								() -> {
									String permit = redissonSemaphore.acquire(TTL.toMillis(), TimeUnit.MILLISECONDS);
									hold();
									redissonSemaphore.release(permit);
								}));
					if (rep == 1) {
						rows.addAll(measured);
					}
				}
				System.out.println("\n| scenario (" + SECONDS.toSeconds() + " s each, hold " + HOLD.toMillis()
						+ " ms) | cycles/s | p50 ms | p99 ms |\n|---|---|---|---|");
				rows.forEach(System.out::println);
			}
			finally {
				redisson.shutdown();
			}
		}
	}

	private static void hold() throws InterruptedException {
		Thread.sleep(HOLD.toMillis());
	}

	private static String run(String label, String name, Cycle cycle) throws Exception {
		AtomicBoolean stop = new AtomicBoolean();
		CountDownLatch done = new CountDownLatch(THREADS);
		long[][] latencies = new long[THREADS][];
		int[] counts = new int[THREADS];
		for (int t = 0; t < THREADS; t++) {
			int index = t;
			Thread thread = new Thread(() -> {
				long[] mine = new long[1 << 16];
				int count = 0;
				try {
					while (!stop.get()) {
						long start = System.nanoTime();
						cycle.run();
						if (count == mine.length) {
							mine = Arrays.copyOf(mine, mine.length * 2);
						}
						mine[count++] = System.nanoTime() - start;
					}
				}
				catch (Exception ex) {
					System.out.println(name + ": " + ex);
				}
				finally {
					latencies[index] = mine;
					counts[index] = count;
					done.countDown();
				}
			}, "bench-" + t);
			thread.start();
		}
		Thread.sleep(SECONDS.toMillis());
		stop.set(true);
		done.await(1, TimeUnit.MINUTES);
		int total = Arrays.stream(counts).sum();
		long[] all = new long[total];
		int next = 0;
		for (int t = 0; t < THREADS; t++) {
			System.arraycopy(latencies[t], 0, all, next, counts[t]);
			next += counts[t];
		}
		Arrays.sort(all);
		String row = String.format("| %s | %.0f | %.2f | %.2f |", name, total / (double) SECONDS.toSeconds(),
				percentile(all, 0.5), percentile(all, 0.99));
		System.out.println(label + " " + row);
		return row;
	}

	private static double percentile(long[] sorted, double share) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		return sorted[Math.min(sorted.length - 1, (int) (sorted.length * share))] / 1e6;
	}

	@FunctionalInterface
	private interface Cycle {

		void run() throws Exception;

	}

}
