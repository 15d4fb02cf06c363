package io.github.redlock.observation;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.engine.RedlockRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A harness, not a test: prints acquire+release cycles per second, and bytes allocated
 * per cycle on the calling thread, of a registry without an observer next to one whose
 * acquisitions and holds are observed (timers through Micrometer's
 * {@link DefaultMeterObservationHandler}), same fleet, same run, rounds interleaved, one
 * thread, 5 local nodes. Run it with
 * {@code ./mvnw -pl redlock-spring-boot-autoconfigure -am verify -Dbenchmarks -Dtest=ObservationOverheadBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("benchmark")
class ObservationOverheadBenchmark {

	private static final Duration RUN = Duration.ofSeconds(4);

	@Test
	void cyclesPerSecondWithAndWithoutObservations() throws Exception {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig()
			.observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
		try (RedisFleet fleet = RedisFleet.start(5);
				RedlockRegistry plain = registry(fleet, null);
				RedlockRegistry observed = registry(fleet, new ObservationLockObserver(observations))) {
			for (int round = 0; round < 3; round++) { // the first round warms up
				double[] without = run(plain, "plain");
				double[] with = run(observed, "observed");
				if (round > 0) {
					System.out.printf(
							"round %d, 5 nodes, 1 thread: without observer %,.0f cycles/s (%,.0f B/cycle on the caller);"
									+ " observed %,.0f cycles/s (%,.0f B/cycle), %.1f%% of the plain rate%n",
							round, without[0], without[1], with[0], with[1], 100 * with[0] / without[0]);
				}
			}
		}
	}

	private static RedlockRegistry registry(RedisFleet fleet, ObservationLockObserver observer) {
		return RedlockRegistry.builder().nodes(fleet.uris()).restartGuard(false).observer(observer).build().start();
	}

	/**
	 * Returns cycles per second and bytes allocated per cycle by the calling thread.
	 */
	private static double[] run(RedlockRegistry registry, String key) throws Exception {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long thread = Thread.currentThread().getId();
		long allocatedBefore = threads.getThreadAllocatedBytes(thread);
		long end = System.nanoTime() + RUN.toNanos();
		long cycles = 0;
		while (System.nanoTime() < end) {
			registry.acquire(key, Duration.ofSeconds(10), Duration.ofSeconds(5)).release();
			cycles++;
		}
		long allocated = threads.getThreadAllocatedBytes(thread) - allocatedBefore;
		return new double[] { cycles / (RUN.toNanos() / 1e9), (double) allocated / cycles };
	}

}
