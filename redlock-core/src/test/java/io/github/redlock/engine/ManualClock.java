package io.github.redlock.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redlock.engine.quorum.MonotonicClock;

/**
 * A monotonic clock that follows the system clock plus an offset the test moves forward,
 * and optionally jumps on one chosen reading.
 */
final class ManualClock implements MonotonicClock {

	private final AtomicLong offset = new AtomicLong();

	private final AtomicLong readings = new AtomicLong();

	private volatile long jumpOnReading = -1;

	private volatile long jumpNanos;

	@Override
	public long nanoTime() {
		long reading = this.readings.incrementAndGet();
		if (reading == this.jumpOnReading) {
			this.offset.addAndGet(this.jumpNanos);
		}
		return System.nanoTime() + this.offset.get();
	}

	void advance(Duration duration) {
		this.offset.addAndGet(duration.toNanos());
	}

	/**
	 * Jumps forward by {@code duration} on the {@code n}-th reading from now.
	 */
	void jumpOnReading(int n, Duration duration) {
		this.jumpNanos = duration.toNanos();
		this.jumpOnReading = this.readings.get() + n;
	}

}
