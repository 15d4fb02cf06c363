package io.github.redlock.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The figures derived from the holds of two JVMs, each hold written as a side records it:
 * {@code {thread, acquired, releasing, released}}.
 */
class TwoJvmScenariosTests {

	@Test
	void handoffsRunFromOneJvmsReleaseReturningToTheOtherJvmsAcquireReturning() {
		List<long[]> mine = List.of(hold(0, 100, 120, 130), hold(0, 300, 320, 330));
		List<long[]> theirs = List.of(hold(0, 200, 220, 230), hold(0, 400, 420, 430));
		TwoJvmScenarios.Analysis run = TwoJvmScenarios.analyse(mine, theirs, 1);
		assertThat(run.handoffs().size()).isEqualTo(3);
		assertThat(run.handoffs().percentile(0)).isEqualTo(70);
		assertThat(run.handoffs().percentile(100)).isEqualTo(70);
		assertThat(run.sameJvm()).isZero();
		assertThat(run.successions()).isEqualTo(3);
		assertThat(run.perJvm()).containsExactly(2, 2);
		assertThat(run.overlaps()).isZero();
		assertThat(run.crossOverlaps()).isZero();
	}

	@Test
	void aHoldOfTheSecondJvmThatBeginsBeforeThisJvmsHolderStartedToReleaseOverlapsAcrossTheJvms() {
		TwoJvmScenarios.Analysis run = TwoJvmScenarios.analyse(List.of(hold(0, 100, 200, 210)),
				List.of(hold(0, 150, 160, 170)), 1);
		assertThat(run.crossOverlaps()).isEqualTo(1);
		assertThat(run.overlaps()).isEqualTo(1);
	}

	@Test
	void anOverlapWithAnEarlierHoldThatIsNotTheLatestOneCounts() {
		// the third hold begins after the second started to release, but inside the first
		TwoJvmScenarios.Analysis run = TwoJvmScenarios.analyse(List.of(hold(0, 100, 500, 510)),
				List.of(hold(0, 200, 210, 220), hold(1, 300, 310, 320)), 2);
		assertThat(run.crossOverlaps()).isEqualTo(2);
	}

	@Test
	void anOverlapWithAnotherThreadOfTheSameJvmCountsButNotAcross() {
		TwoJvmScenarios.Analysis run = TwoJvmScenarios.analyse(List.of(hold(0, 100, 200, 210), hold(1, 150, 160, 170)),
				List.of(), 2);
		assertThat(run.overlaps()).isEqualTo(1);
		assertThat(run.crossOverlaps()).isZero();
		assertThat(run.sameJvm()).isEqualTo(1);
		assertThat(run.handoffs().size()).isZero();
	}

	@Test
	void holdsThatFollowEachOtherDoNotOverlapEvenWhenTheNextBeginsBeforeTheReleaseReturned() {
		// a quorum's next holder may get the lock before the last node answered the
		// release
		TwoJvmScenarios.Analysis run = TwoJvmScenarios.analyse(List.of(hold(0, 100, 110, 140)),
				List.of(hold(0, 120, 130, 150)), 1);
		assertThat(run.overlaps()).isZero();
		assertThat(run.handoffs().percentile(50)).isEqualTo(-20);
	}

	@Test
	void theSecondJvmsThreadsAreNumberedAfterThisJvms() {
		TwoJvmScenarios.Analysis run = TwoJvmScenarios.analyse(List.of(hold(1, 100, 110, 120)),
				List.of(hold(1, 200, 210, 220), hold(1, 300, 310, 320), hold(0, 400, 410, 420)), 2);
		assertThat(run.perThread()).containsExactly(0, 1, 1, 2);
		assertThat(run.perJvm()).containsExactly(1, 3);
		assertThat(run.acquisitions()).isEqualTo(4);
	}

	private static long[] hold(long thread, long acquired, long releasing, long released) {
		return new long[] { thread, acquired, releasing, released };
	}

}
