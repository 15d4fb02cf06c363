package io.github.redlock.engine;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Decides when an acquisition that found its lock unavailable tries again. Nothing else
 * in the engine decides it, so that this is the one place to change how waiters wait.
 * <p>
 * Today every waiter polls: it tries again after {@code retryDelay} plus a random jitter
 * up to {@code retryJitter}, so that contenders fall out of step, and never later than
 * its wait time allows. Per-key queues of local waiters and wake-ups when a lock is
 * released belong here too.
 *
 * @author redlock contributors
 */
final class Waiting {

	private final long retryDelayNanos;

	private final long retryJitterNanos;

	private final ScheduledExecutorService scheduler;

	Waiting(RedlockSettings settings, ScheduledExecutorService scheduler) {
		this.retryDelayNanos = settings.retryDelay().toNanos();
		this.retryJitterNanos = settings.retryJitter().toNanos();
		this.scheduler = scheduler;
	}

	/**
	 * Schedules the next attempt of an acquisition.
	 * @param attempt the next attempt
	 * @param leftNanos what is left of the acquisition's wait time, more than zero
	 * @return {@code false} if the registry is closing and runs no more attempts
	 */
	boolean retryLater(Runnable attempt, long leftNanos) {
		long delay = this.retryDelayNanos;
		if (this.retryJitterNanos > 0) {
			delay += ThreadLocalRandom.current().nextLong(this.retryJitterNanos);
		}
		try {
			this.scheduler.schedule(attempt, Math.min(delay, leftNanos), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
	}

}
