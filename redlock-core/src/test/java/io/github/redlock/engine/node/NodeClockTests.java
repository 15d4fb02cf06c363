package io.github.redlock.engine.node;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.NodeFailure;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@link NodeClock} makes of readings of a node's clock: a jump between two readings
 * beyond the drift allowed, or an offset far off the fleet's median, keeps the node out
 * for the guard time; steady readings, however far apart, do not.
 */
class NodeClockTests {

	private static final ClientResources resources = DefaultClientResources.create();

	private static final long GUARD = TimeUnit.SECONDS.toNanos(60);

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	@AfterAll
	static void shutdown() {
		resources.shutdown();
	}

	/**
	 * A reading sent at {@code at} with a 1 ms round trip, the node {@code offset} µs
	 * off.
	 */
	private static void read(NodeClock clock, long at, long offsetMicros) {
		long received = at + 1_000_000;
		clock.measured(at, received, TimeUnit.NANOSECONDS.toMicros(at + 500_000) + offsetMicros);
	}

	@Test
	void steadyReadingsWithinTheDriftKeepTheNodeIn() {
		NodeClock clock = new NodeClock("n1", new FleetClocks(0.01), GUARD, resources, () -> {
		});
		long start = System.nanoTime();
		read(clock, start, 5_000);
		// 1 s later, 4 ms of drift: within 1 % of a second plus the errors
		read(clock, start + SECOND, 9_000);
		// an hour later, 30 s further: 1 % of an hour is 36 s
		read(clock, start + 3600 * SECOND, 30_009_000);
		assertThat(clock.failure()).isNull();
	}

	@Test
	void aJumpBetweenTwoReadingsKeepsTheNodeOutForTheGuardTimeAndIsToldOnce() {
		AtomicInteger told = new AtomicInteger();
		NodeClock clock = new NodeClock("n1", new FleetClocks(0.01), GUARD, resources, told::incrementAndGet);
		long start = System.nanoTime();
		read(clock, start, 0);
		read(clock, start + SECOND, 10_000_000);
		NodeFailure failure = clock.failure();
		assertThat(failure).isNotNull();
		assertThat(failure.kind()).isEqualTo(NodeFailure.Kind.CLOCK);
		assertThat(failure.detail()).contains("its clock jumped +10.000s").contains("counts again in");
		// steady after the jump: still out until the guard time has passed
		read(clock, start + 2 * SECOND, 10_000_000);
		assertThat(clock.failure()).isNotNull();
		assertThat(told).hasValue(1);
		assertThat(clock.outUntilNanos() - (start + SECOND + 1_000_000)).isEqualTo(GUARD);
	}

	@Test
	void aJumpBackIsAJumpToo() {
		NodeClock clock = new NodeClock("n1", new FleetClocks(0.01), GUARD, resources, () -> {
		});
		long start = System.nanoTime();
		read(clock, start, 0);
		read(clock, start + SECOND, -2_000_000);
		assertThat(clock.failure().detail()).contains("its clock jumped -2.000s");
	}

	@Test
	void aClockFarOffTheMedianKeepsThatNodeOutAndOnlyIt() {
		FleetClocks fleet = new FleetClocks(0.01);
		NodeClock first = new NodeClock("n1", fleet, GUARD, resources, () -> {
		});
		NodeClock second = new NodeClock("n2", fleet, GUARD, resources, () -> {
		});
		NodeClock skewed = new NodeClock("n3", fleet, GUARD, resources, () -> {
		});
		long start = System.nanoTime();
		read(first, start, 1_000);
		read(second, start, 2_000);
		// half of the guard time is 30 s: 31 s off the median is beyond it
		read(skewed, start, 31_000_000);
		assertThat(skewed.failure().detail()).contains("+30.998s off the median");
		assertThat(first.failure()).isNull();
		assertThat(second.failure()).isNull();
	}

	@Test
	void theNodeCountsAgainOnceItsClockWasSteadyForTheGuardTime() {
		AtomicInteger told = new AtomicInteger();
		NodeClock clock = new NodeClock("n1", new FleetClocks(0.01), Duration.ofMillis(300).toNanos(), resources,
				told::incrementAndGet);
		long start = System.nanoTime();
		read(clock, start - SECOND, 0);
		read(clock, start, 5_000_000);
		assertThat(clock.failure()).isNotNull();
		await().atMost(Duration.ofSeconds(10)).until(() -> clock.failure() == null && told.get() == 2);
	}

}
