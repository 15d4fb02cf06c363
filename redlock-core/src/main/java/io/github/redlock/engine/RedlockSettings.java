package io.github.redlock.engine;

import java.time.Duration;

/**
 * The tuning of a {@link RedlockRegistry}, as validated by its builder.
 *
 * @param nodeTimeout how long one node may take to answer
 * @param connectTimeout how long connecting to a node may take
 * @param driftFactor share of the TTL allowed for clock drift
 * @param retryDelay least delay between two attempts
 * @param retryJitter most random delay added to the retry delay
 * @param keyPrefix prefix of every key on the nodes
 * @param defaultTtl TTL used when none is given
 * @param defaultWaitTime wait time used when none is given
 * @param maxTtl largest TTL accepted; how long a restarted node sits out
 * @param maxHold longest a lease may be kept by extensions
 * @param fencingRetention how long a fencing counter outlives its last use
 * @param restartGuard whether restarted nodes sit out of quorums
 * @author redlock contributors
 */
public record RedlockSettings(Duration nodeTimeout, Duration connectTimeout, double driftFactor, Duration retryDelay,
		Duration retryJitter, String keyPrefix, Duration defaultTtl, Duration defaultWaitTime, Duration maxTtl,
		Duration maxHold, Duration fencingRetention, boolean restartGuard) {
}
