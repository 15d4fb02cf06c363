package io.github.redlock.engine;

import java.time.Duration;

import io.github.redlock.Durations;
import io.github.redlock.engine.node.NodeTrust;

/**
 * The tuning of a {@link RedlockRegistry}, checked when it is made: every option must be
 * one the algorithm can work with, or an {@link InvalidOptionException} names it and the
 * fix.
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

	/**
	 * Shortest counter retention: a new counter starts from a clock rounded down to the
	 * second, so a shorter one could start again at the token it had.
	 */
	private static final Duration MIN_FENCING_RETENTION = Duration.ofSeconds(2);

	/**
	 * Shortest maximum TTL with the restart guard on: a node that came back sits out for
	 * it, and fencing tokens stay increasing across its return only while that is more
	 * than twice how far the nodes' clocks may be off ({@code NodeTrust.floorMicros}).
	 */
	private static final Duration MIN_GUARDED_MAX_TTL = Duration.ofSeconds(1);

	/**
	 * Checks the settings.
	 * @throws InvalidOptionException naming the option and the fix if one is invalid
	 */
	public RedlockSettings {
		positive("nodeTimeout", nodeTimeout);
		positive("connectTimeout", connectTimeout);
		positive("defaultTtl", defaultTtl);
		positive("maxTtl", maxTtl);
		positive("maxHold", maxHold);
		positive("fencingRetention", fencingRetention);
		if (fencingRetention.compareTo(MIN_FENCING_RETENTION) < 0) {
			throw new InvalidOptionException(
					"fencingRetention " + Durations.format(fencingRetention) + " is under "
							+ MIN_FENCING_RETENTION.toSeconds()
							+ "s: a counter that expires so soon could start again at the token it had",
					"keep counters far longer than the clock skew between nodes; the default is 1 day");
		}
		notNegative("retryDelay", retryDelay);
		notNegative("retryJitter", retryJitter);
		notNegative("defaultWaitTime", defaultWaitTime);
		if (!(driftFactor >= 0 && driftFactor < 0.5)) {
			throw new InvalidOptionException("driftFactor must be at least 0 and below 0.5, was " + driftFactor,
					"set it from 0 to below 0.5; 0.01 suits clocks kept by NTP");
		}
		if (defaultTtl.compareTo(nodeTimeout.multipliedBy(10)) < 0) {
			throw new InvalidOptionException("nodeTimeout " + nodeTimeout.toMillis()
					+ "ms is not well below defaultTtl " + defaultTtl.toMillis() + "ms",
					"make the node timeout at most a tenth of the TTL, such as 50ms for a 10s TTL");
		}
		if (defaultTtl.compareTo(maxTtl) > 0) {
			throw new InvalidOptionException(
					"defaultTtl " + Durations.format(defaultTtl) + " is above maxTtl " + Durations.format(maxTtl),
					"lower defaultTtl or raise maxTtl");
		}
		if (restartGuard && maxTtl.compareTo(MIN_GUARDED_MAX_TTL) < 0) {
			throw new InvalidOptionException("maxTtl " + Durations.format(maxTtl) + " is under "
					+ MIN_GUARDED_MAX_TTL.toSeconds()
					+ "s with the restart guard on: a node that restarted sits out for maxTtl, and fencing tokens"
					+ " stay increasing across its return only while that is well above twice the clock skew"
					+ " between the nodes",
					"raise maxTtl to 1s or more (leases may still be shorter), or turn the restart guard off for"
							+ " throwaway nodes");
		}
		if (maxTtl.compareTo(maxHold) > 0) {
			throw new InvalidOptionException(
					"maxTtl " + Durations.format(maxTtl) + " is above maxHold " + Durations.format(maxHold),
					"lower maxTtl or raise maxHold");
		}
		if (keyPrefix == null) {
			throw new InvalidOptionException("keyPrefix is null", "use \"\" for no prefix");
		}
	}

	private static void positive(String name, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidOptionException(name + " must be positive, was " + value,
					"give a duration such as 30s or 500ms");
		}
	}

	private static void notNegative(String name, Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidOptionException(name + " must be zero or positive, was " + value,
					"give a duration such as 0s or 500ms");
		}
	}

}
