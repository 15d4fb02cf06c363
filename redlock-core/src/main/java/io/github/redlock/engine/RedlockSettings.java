package io.github.redlock.engine;

import java.time.Duration;

/**
 * The tuning of a {@link RedlockRegistry}, validated by its builder.
 *
 * @author redlock contributors
 */
record RedlockSettings(Duration nodeTimeout, Duration connectTimeout, double driftFactor, Duration retryDelay,
		Duration retryJitter, String keyPrefix, Duration defaultTtl, Duration defaultWaitTime, Duration maxTtl,
		Duration maxHold, Duration fencingRetention, boolean restartGuard) {
}
