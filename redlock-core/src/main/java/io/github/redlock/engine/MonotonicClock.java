package io.github.redlock.engine;

/**
 * Source of monotonic time, in nanoseconds. Replaced in tests by a clock they control.
 *
 * @author redlock contributors
 */
@FunctionalInterface
interface MonotonicClock {

	MonotonicClock SYSTEM = System::nanoTime;

	long nanoTime();

}
