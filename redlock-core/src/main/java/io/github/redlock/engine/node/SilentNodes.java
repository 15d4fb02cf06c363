package io.github.redlock.engine.node;

import java.time.Duration;

import io.github.redlock.Durations;
import io.github.redlock.engine.InvalidOptionException;

/**
 * When a node counts as silent ({@link NodeSilence}) and how often a silent node is
 * probed, checked when the registry is built.
 *
 * @param timeouts how many timeouts in a row, with no reply between them, make a node
 * silent
 * @param probeInterval how long after a probe that failed the next one goes
 * @author redlock contributors
 */
public record SilentNodes(int timeouts, Duration probeInterval) {

	/**
	 * Three: one or two timeouts happen to a healthy node on a busy machine; three in a
	 * row, with nothing read from the node for three node timeouts (300ms by default),
	 * are rarer, and a node suspected so is sent a probe ({@code TIME}) before it falls
	 * silent. A stall of this process or a burst of thousands of commands makes a healthy
	 * node look so, and it answers the probe. At full load a black-holed node is found
	 * within about those three node timeouts plus one, plus the probe timeout.
	 */
	public static final int DEFAULT_TIMEOUTS = 3;

	/**
	 * One second: a node back from a freeze or a healed link rejoins within about that
	 * (the probe after it sends again), and a suspected node that is only busy has that
	 * long to answer its probe. Probes cost nothing while the node sends nothing: one
	 * waits in the connection at most.
	 */
	public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(1);

	/**
	 * Longest probe interval accepted: past it a node that came back sits out too long.
	 */
	static final Duration MAX_PROBE_INTERVAL = Duration.ofMinutes(1);

	/**
	 * Checks the settings.
	 * @throws InvalidOptionException naming the option and the fix if one is invalid
	 */
	public SilentNodes {
		if (timeouts < 1) {
			throw new InvalidOptionException("silentNodeTimeouts must be at least 1, was " + timeouts,
					"give how many timeouts in a row make a node silent; the default is " + DEFAULT_TIMEOUTS);
		}
		if (probeInterval == null || probeInterval.isNegative() || probeInterval.isZero()) {
			throw new InvalidOptionException("silentNodeProbeInterval must be positive, was " + probeInterval,
					"give a duration such as 1s, the default");
		}
		if (probeInterval.compareTo(MAX_PROBE_INTERVAL) > 0) {
			throw new InvalidOptionException(
					"silentNodeProbeInterval " + Durations.format(probeInterval) + " is above "
							+ Durations.format(MAX_PROBE_INTERVAL)
							+ ": a node that answers again would count toward no quorum for that long",
					"probe at most every minute; the default is " + Durations.format(DEFAULT_PROBE_INTERVAL));
		}
	}

}
