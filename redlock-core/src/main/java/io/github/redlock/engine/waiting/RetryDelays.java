package io.github.redlock.engine.waiting;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redlock.engine.RedlockSettings;

/**
 * The delays of one registry's heads between attempts: {@code retryDelay} plus a random
 * jitter up to {@code retryJitter}, so that contenders of different processes fall out of
 * step, never later than the holder's remaining time to live, so that a lock whose holder
 * died is taken as soon as it expires.
 *
 * @author redlock contributors
 */
final class RetryDelays {

	final long delayNanos;

	final long jitterNanos;

	RetryDelays(RedlockSettings settings) {
		this.delayNanos = settings.retryDelay().toNanos();
		this.jitterNanos = settings.retryJitter().toNanos();
	}

	/**
	 * Returns the delay before a head tries again, doubled {@code doublings} times
	 * ({@link Place#pollBackoff}) before it is capped by the holder's time to live.
	 * @param holderLeftNanos the holder's remaining time to live as the nodes reported
	 * it, or a negative value if none did
	 */
	long next(long holderLeftNanos, int doublings) {
		long delay = this.delayNanos;
		if (this.jitterNanos > 0) {
			delay += ThreadLocalRandom.current().nextLong(this.jitterNanos);
		}
		delay <<= doublings;
		if (holderLeftNanos >= 0) {
			// the key expires then: a millisecond later, it is free on that node
			delay = Math.min(delay, holderLeftNanos + TimeUnit.MILLISECONDS.toNanos(1));
		}
		return delay;
	}

}
