package io.github.redlock.shedlock.autoconfigure;

import io.github.redlock.Durations;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link SchedulerLockMaxHoldException}: which ShedLock declarations ask for
 * too long, and the two ways out.
 *
 * @author redlock contributors
 */
class SchedulerLockMaxHoldFailureAnalyzer extends AbstractFailureAnalyzer<SchedulerLockMaxHoldException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SchedulerLockMaxHoldException cause) {
		StringBuilder description = new StringBuilder("ShedLock locks ask to be held longer than redlock.max-hold ("
				+ Durations.format(cause.getMaxHold()) + ") allows a redlock lock to be held:\n");
		for (String lock : cause.getLocks()) {
			description.append("\n    - ").append(lock);
		}
		description.append("\n\nA lock held that long would be cut short at ")
			.append(Durations.format(cause.getMaxHold()))
			.append(", and another instance could run the task while it still runs.");
		String action = "Raise redlock.max-hold to at least " + Durations.format(cause.getLongest())
				+ " (for example redlock.max-hold=" + Durations.format(cause.getLongest())
				+ "), or lower lockAtMostFor of the locks listed above.";
		return new FailureAnalysis(description.toString(), action, cause);
	}

}
