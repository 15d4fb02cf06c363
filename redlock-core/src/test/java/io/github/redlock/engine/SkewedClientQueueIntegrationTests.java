package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nodes order their queue of waiting processes by the stamp each process gives its
 * entry, so the stamp must be a time the processes read alike. Two processes take turns
 * on one key, one of them with a wall clock 10 s ahead: both get a fair share of the
 * turns. Failed while the stamp was the process's own wall clock: the process ahead was
 * queued behind every entry of the other for 10 s, and got 4 of 436 sections in 4 s.
 */
class SkewedClientQueueIntegrationTests {

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@RegisterExtension
	final TestRegistries registries = new TestRegistries();

	@Test
	void aProcessWhoseWallClockIsAheadGetsItsShareOfTheTurns() throws Exception {
		RedlockRegistry ahead = this.registries.add(TestRegistries.builder(fleet).build());
		ahead.parts().fleet.wallClock(() -> System.currentTimeMillis() + TimeUnit.SECONDS.toMillis(10));
		ahead.start();
		List<RedlockRegistry> processes = List.of(ahead, this.registries.start(TestRegistries.builder(fleet)),
				this.registries.start(TestRegistries.builder(fleet)));
		List<AtomicInteger> counts = List.of(new AtomicInteger(), new AtomicInteger(), new AtomicInteger());
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
		ExecutorService threads = Executors.newFixedThreadPool(6);
		List<Future<?>> work = new ArrayList<>();
		try {
			for (int t = 0; t < 6; t++) {
				RedlockRegistry registry = processes.get(t % 3);
				AtomicInteger sections = counts.get(t % 3);
				work.add(threads.submit(() -> {
					while (System.nanoTime() - end < 0) {
						try (Lease lease = registry.acquire("skewed", Duration.ofSeconds(5), Duration.ofSeconds(20))) {
							Thread.sleep(2);
							sections.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : work) {
				future.get(1, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		int total = counts.stream().mapToInt(AtomicInteger::get).sum();
		System.out.println("sections per process, the first 10 s ahead: " + counts);
		// a fair share is a third; a process queued behind every other for 10 s gets
		// none of the named turns in 4 s
		assertThat(counts.get(0).get()).as("sections of the process ahead, of %d: %s", total, counts)
			.isGreaterThanOrEqualTo(total / 6);
	}

}
