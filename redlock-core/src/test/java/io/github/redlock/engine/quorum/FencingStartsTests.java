package io.github.redlock.engine.quorum;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FencingStartsTests {

	@Test
	void aStartIsTheAgreedTimeWhileThatIsAboveTheLastStart() {
		FencingStarts starts = new FencingStarts();
		assertThat(starts.next(1_000)).isEqualTo(1_000);
		assertThat(starts.next(5_000)).isEqualTo(5_000);
	}

	@Test
	void aStartIsAboveTheLastOneWhenTheAgreedTimeStoodStillOrMovedBack() {
		FencingStarts starts = new FencingStarts();
		starts.next(5_000);
		assertThat(starts.next(5_000)).isEqualTo(5_001);
		// the median of the nodes' clocks moved back, or another node's measurement
		// became the median
		assertThat(starts.next(4_000)).isEqualTo(5_002);
		assertThat(starts.next(6_000)).isEqualTo(6_000);
	}

}
