package io.github.redlock.shedlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redlock.Durations;

/**
 * Thrown at start-up when ShedLock locks declared in the application ask for a
 * {@code lockAtMostFor} above {@code redlock.max-hold}.
 *
 * @author redlock contributors
 */
public final class SchedulerLockMaxHoldException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final Duration maxHold;

	private final Duration longest;

	private final List<String> locks;

	SchedulerLockMaxHoldException(Duration maxHold, Duration longest, List<String> locks) {
		super("ShedLock locks ask for a lockAtMostFor above redlock.max-hold (" + Durations.format(maxHold)
				+ "), the longest a redlock lock may be held: " + String.join("; ", locks));
		this.maxHold = maxHold;
		this.longest = longest;
		this.locks = List.copyOf(locks);
	}

	/**
	 * Returns the maximum hold time in force.
	 * @return {@code redlock.max-hold}
	 */
	public Duration getMaxHold() {
		return this.maxHold;
	}

	/**
	 * Returns the longest {@code lockAtMostFor} asked for.
	 * @return the longest duration
	 */
	public Duration getLongest() {
		return this.longest;
	}

	/**
	 * Returns a description of each declaration that asks for too long.
	 * @return the declarations
	 */
	public List<String> getLocks() {
		return this.locks;
	}

}
