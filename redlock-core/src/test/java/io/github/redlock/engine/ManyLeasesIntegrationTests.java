package io.github.redlock.engine;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 10,000 leases held at once in one JVM, all kept extended by the watchdog, for three
 * times their TTL: none may be lost. Prints the threads and CPU it took, and why leases
 * were lost if any were.
 * <p>
 * Tagged {@code alone}: the build runs it after the other tests, in a JVM of its own.
 * Beside two other test JVMs on 2 cores its nodes missed the 250 ms node timeout,
 * extensions failed on a quorum and leases were lost (CI: 2,458 of 10,000; here 349, and
 * 739 to 3,960 with three busy processes beside it). That is the machine out of capacity,
 * which the leases' loss signal reports as it should, not the engine failing.
 */
@Tag("alone")
class ManyLeasesIntegrationTests {

	private static final int LEASES = 10_000;

	private static final Duration TTL = Duration.ofSeconds(6);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(5);

	@Test
	void tenThousandAutoExtendedLeasesSurviveThreeTimesTheirTtl() throws Exception {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.nodeTimeout(Duration.ofMillis(250))
			.defaultTtl(TTL)
			.restartGuard(false) // fresh nodes
			.build()
			.start()) {
			int threadsBefore = threads.getThreadCount();
			AtomicInteger lost = new AtomicInteger();
			Map<String, AtomicInteger> causes = new ConcurrentHashMap<>();
			List<Lease> leases = new ArrayList<>(LEASES);
			Semaphore inFlight = new Semaphore(256);
			List<CompletableFuture<Lease>> acquisitions = new ArrayList<>(LEASES);
			long acquireStart = System.nanoTime();
			for (int i = 0; i < LEASES; i++) {
				inFlight.acquire();
				CompletableFuture<Lease> lease = registry.acquireAsync("load:" + i, TTL, Duration.ofSeconds(30), true);
				lease.whenComplete((held, ex) -> inFlight.release());
				acquisitions.add(lease);
			}
			for (CompletableFuture<Lease> acquisition : acquisitions) {
				Lease lease = acquisition.get(1, TimeUnit.MINUTES);
				lease.addListener((gone, cause) -> {
					lost.incrementAndGet();
					causes
						.computeIfAbsent(String.valueOf(cause.getMessage()).replaceAll("'[^']*'", "'…'"),
								(message) -> new AtomicInteger())
						.incrementAndGet();
				});
				leases.add(lease);
			}
			double acquireSeconds = (System.nanoTime() - acquireStart) / 1e9;
			long cpuStart = os.getProcessCpuTime();
			long holdStart = System.nanoTime();
			int peakThreads = 0;
			while (System.nanoTime() - holdStart < TTL.multipliedBy(3).toNanos()) {
				peakThreads = Math.max(peakThreads, threads.getThreadCount());
				Thread.sleep(100); // holding the leases for a stated time
			}
			double holdSeconds = (System.nanoTime() - holdStart) / 1e9;
			double cpuSeconds = (os.getProcessCpuTime() - cpuStart) / 1e9;
			long held = leases.stream().filter(Lease::isHeld).count();
			System.out.printf(
					"%,d leases acquired in %.1fs; held for %.1fs (3 x %ds TTL): %,d still held, %d lost; "
							+ "threads %d before, %d peak; JVM CPU %.2f cores while holding%n",
					LEASES, acquireSeconds, holdSeconds, TTL.toSeconds(), held, lost.get(), threadsBefore, peakThreads,
					cpuSeconds / holdSeconds);
			causes.forEach((cause, count) -> System.out.printf("lost %,d: %s%n", count.get(), cause));
			assertThat(lost).hasValue(0);
			assertThat(held).isEqualTo(LEASES);
			assertThat(registry.heldLeases()).isEqualTo(LEASES);
			// the watchdog is one thread, whatever the number of leases
			assertThat(peakThreads - threadsBefore).isLessThan(10);
			CompletableFuture.allOf(leases.stream().map(Lease::releaseAsync).toArray(CompletableFuture[]::new))
				.get(1, TimeUnit.MINUTES);
			assertThat(registry.heldLeases()).isZero();
		}
		// no lock key is left: each was deleted by its release or, where a release timed
		// out on a node under load, expired with its TTL (KEYS skips expired keys, which
		// DBSIZE would still count until Redis reclaims them)
		System.out.printf("lock keys left just after close: %d%n", keys("redlock:lock:*"));
		await().atMost(TTL.plusSeconds(15)).untilAsserted(() -> assertThat(keys("redlock:lock:*")).isZero());
		// the fencing counters stay for their retention, on at least a quorum per key
		assertThat(keys("redlock:fence:*")).isBetween(3L * LEASES, 5L * LEASES);
	}

	private static long keys(String pattern) {
		long count = 0;
		for (int i = 0; i < 5; i++) {
			count += ((List<?>) fleet.node(i).call("KEYS", pattern)).size();
		}
		return count;
	}

}
