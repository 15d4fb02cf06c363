package io.github.redlock.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arithmetic of {@link SocketFlushes.Window}: flushes counted by the writes each
 * carried.
 */
class SocketFlushesTests {

	@Test
	void aWindowIsTheDifferenceOfTwoSnapshotsWeightedByWrites() {
		long[] start = new long[SocketFlushes.LARGEST + 1];
		long[] end = new long[SocketFlushes.LARGEST + 1];
		start[1] = 5;
		end[1] = 15; // 10 flushes of one write
		end[0] = 2; // 2 flushes of nothing
		end[90] = 1; // 1 flush of 90 writes
		SocketFlushes.Window window = SocketFlushes.Window.between(start, end);
		assertThat(window.flushes()).isEqualTo(13);
		assertThat(window.writes()).isEqualTo(100);
		// the first 10 writes went out alone, the other 90 together
		assertThat(window.writeWeightedPercentile(10)).isEqualTo(1);
		assertThat(window.writeWeightedPercentile(11)).isEqualTo(90);
		assertThat(window.writeWeightedPercentile(50)).isEqualTo(90);
	}

	@Test
	void aWindowWithoutWritesHasNoFlushSize() {
		long[] none = new long[SocketFlushes.LARGEST + 1];
		SocketFlushes.Window window = SocketFlushes.Window.between(none, none);
		assertThat(window.writes()).isZero();
		assertThat(window.writeWeightedPercentile(50)).isZero();
	}

}
