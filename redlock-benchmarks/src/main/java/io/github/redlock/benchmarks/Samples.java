package io.github.redlock.benchmarks;

import java.util.Arrays;

/**
 * A growable list of nanosecond samples with nearest-rank percentiles.
 */
final class Samples {

	private long[] values = new long[256];

	private int size;

	void add(long value) {
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = value;
	}

	void addAll(Samples other) {
		for (int i = 0; i < other.size; i++) {
			add(other.values[i]);
		}
	}

	int size() {
		return this.size;
	}

	/**
	 * Returns the mean of the samples, or NaN without samples.
	 */
	double mean() {
		double sum = 0;
		for (int i = 0; i < this.size; i++) {
			sum += this.values[i];
		}
		return (this.size > 0) ? sum / this.size : Double.NaN;
	}

	/**
	 * Returns the nearest-rank percentile in µs, or NaN without samples.
	 */
	double percentileMicros(double percent) {
		long nanos = percentile(percent);
		return (nanos == -1) ? Double.NaN : nanos / 1000.0;
	}

	/**
	 * Returns the nearest-rank percentile, or -1 without samples.
	 */
	long percentile(double percent) {
		if (this.size == 0) {
			return -1;
		}
		long[] sorted = Arrays.copyOf(this.values, this.size);
		Arrays.sort(sorted);
		int rank = (int) Math.ceil(percent / 100.0 * this.size);
		return sorted[Math.max(0, Math.min(this.size - 1, rank - 1))];
	}

}
