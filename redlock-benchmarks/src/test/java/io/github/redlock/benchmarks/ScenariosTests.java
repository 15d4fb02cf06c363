package io.github.redlock.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The figures derived from the holds of one JVM's threads on one key, each hold
 * {@code {acquired, releasing, released, thread}}, and the critical section.
 */
class ScenariosTests {

	@Test
	void aHoldThatBeginsBeforeAnotherThreadStartedToReleaseOverlaps() {
		Scenarios.OneKey run = Scenarios.analyse(List.of(hold(100, 200, 210, 0), hold(150, 160, 170, 1)));
		assertThat(run.overlaps()).isEqualTo(1);
	}

	@Test
	void anOverlapWithAnEarlierHoldThatIsNotThePreviousOneCounts() {
		// the third begins after the second started to release, but inside the first:
		// comparing with the previous hold only missed it
		Scenarios.OneKey run = Scenarios
			.analyse(List.of(hold(100, 500, 510, 0), hold(200, 210, 220, 1), hold(300, 310, 320, 2)));
		assertThat(run.overlaps()).isEqualTo(2);
	}

	@Test
	void successionsAreHandoffsToAnotherThreadOrTheSameThreadAgain() {
		Scenarios.OneKey run = Scenarios
			.analyse(List.of(hold(300, 310, 320, 1), hold(100, 110, 120, 0), hold(200, 210, 220, 0)));
		assertThat(run.self()).isEqualTo(1);
		assertThat(run.handoffs().size()).isEqualTo(1);
		assertThat(run.handoffs().percentile(50)).isEqualTo(80);
		assertThat(run.overlaps()).isZero();
	}

	@Test
	void theCriticalSectionLastsAtLeastItsLength() {
		long acquired = System.nanoTime();
		assertThat(Scenarios.occupy(acquired, 2_000_000) - acquired).isGreaterThanOrEqualTo(2_000_000);
		assertThat(Scenarios.occupy(acquired, 0) - acquired).isNotNegative();
	}

	private static long[] hold(long acquired, long releasing, long released, long thread) {
		return new long[] { acquired, releasing, released, thread };
	}

}
