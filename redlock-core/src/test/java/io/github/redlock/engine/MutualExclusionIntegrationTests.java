package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.LockAcquisitionException;
import io.github.redlock.embedded.RedisFleet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight registries, each with its own connections, and four threads each, do a
 * read-modify-write of one counter under one lock for a bounded time. A lost update or an
 * overlap would show a broken mutual exclusion.
 */
class MutualExclusionIntegrationTests {

	private static final int REGISTRIES = 8;

	private static final int THREADS_PER_REGISTRY = 4;

	private static final Duration RUN_TIME = Duration.ofSeconds(4);

	private long counter; // deliberately unsynchronized: only the lock protects it

	@ParameterizedTest(name = "{0} nodes")
	@ValueSource(ints = { 3, 5 })
	void noUpdateIsLostAndNoTwoHoldersOverlap(int nodes) throws Exception {
		List<RedlockRegistry> registries = new ArrayList<>();
		ExecutorService threads = Executors.newFixedThreadPool(REGISTRIES * THREADS_PER_REGISTRY);
		try (RedisFleet fleet = RedisFleet.start(nodes)) {
			for (int i = 0; i < REGISTRIES; i++) {
				registries.add(TestRegistries.builder(fleet)
					.nodeTimeout(Duration.ofMillis(500))
					.retryDelay(Duration.ofMillis(5))
					.retryJitter(Duration.ofMillis(20))
					.build()
					.start());
			}
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger overlaps = new AtomicInteger();
			AtomicInteger sections = new AtomicInteger();
			List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
			long end = System.nanoTime() + RUN_TIME.toNanos();
			List<CompletableFuture<Void>> workers = new ArrayList<>();
			for (RedlockRegistry registry : registries) {
				for (int t = 0; t < THREADS_PER_REGISTRY; t++) {
					workers.add(CompletableFuture.runAsync(() -> {
						while (System.nanoTime() < end) {
							try (Lease lease = registry.acquire("counter", Duration.ofSeconds(10),
									Duration.ofSeconds(20))) {
								if (inside.incrementAndGet() != 1) {
									overlaps.incrementAndGet();
								}
								tokens.add(lease.fencingToken());
								long read = this.counter;
								Thread.yield();
								this.counter = read + 1;
								sections.incrementAndGet();
								inside.decrementAndGet();
							}
							catch (LockAcquisitionException ex) {
								// contention beyond the wait time: try again
							}
							catch (InterruptedException ex) {
								Thread.currentThread().interrupt();
								return;
							}
						}
					}, threads));
				}
			}
			CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
			assertThat(overlaps).hasValue(0);
			assertThat(this.counter).isEqualTo(sections.get());
			assertThat(sections.get()).isGreaterThan(20);
			// critical sections ran one after another, so their tokens are in increasing
			// order
			assertThat(tokens).isSorted().doesNotHaveDuplicates();
		}
		finally {
			threads.shutdownNow();
			registries.forEach(RedlockRegistry::close);
		}
	}

}
