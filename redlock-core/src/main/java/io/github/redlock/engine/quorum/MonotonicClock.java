package io.github.redlock.engine.quorum;

/**
 * Source of monotonic time, in nanoseconds. Replaced in tests by a clock they control.
 *
 * @author redlock contributors
 */
@FunctionalInterface
public interface MonotonicClock {

	MonotonicClock SYSTEM = System::nanoTime;

	long nanoTime();

}
