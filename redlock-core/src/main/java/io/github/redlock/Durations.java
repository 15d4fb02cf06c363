package io.github.redlock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Durations in messages, in the style users write them in properties: {@code 500ms},
 * {@code 10s}, {@code 2m}, {@code 1h}, {@code 1d}, never {@code PT2M}.
 *
 * @author redlock contributors
 */
public final class Durations {

	private Durations() {
	}

	/**
	 * Formats a duration in the largest unit that shows it exactly.
	 * @param duration the duration, or {@code null}
	 * @return such as {@code 2m} or {@code 1500ms}
	 */
	public static String format(@Nullable Duration duration) {
		if (duration == null) {
			return "null";
		}
		long millis = duration.toMillis();
		if (duration.toNanos() % 1_000_000 != 0 && Math.abs(millis) < 1000) {
			return duration.toNanos() / 1000 + "us";
		}
		if (millis != 0 && millis % 86_400_000 == 0) {
			return millis / 86_400_000 + "d";
		}
		if (millis != 0 && millis % 3_600_000 == 0) {
			return millis / 3_600_000 + "h";
		}
		if (millis != 0 && millis % 60_000 == 0) {
			return millis / 60_000 + "m";
		}
		if (millis % 1000 == 0) {
			return millis / 1000 + "s";
		}
		return millis + "ms";
	}

}
