package io.github.redlock.autoconfigure;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.RedlockException;
import io.github.redlock.engine.InvalidOptionException;

/**
 * Thrown at start-up when the {@code redlock.*} configuration cannot work. Turned into a
 * description and an action by {@link RedlockConfigurationFailureAnalyzer}.
 *
 * @author redlock contributors
 */
public class InvalidRedlockConfigurationException extends RedlockException {

	private static final long serialVersionUID = 1L;

	private static final Pattern OPTION = Pattern.compile(
			"\\b(nodeTimeout|connectTimeout|driftFactor|retryDelay|retryJitter|keyPrefix|defaultTtl|defaultWaitTime|maxTtl|maxHold|fencingRetention|silentNodeTimeouts|silentNodeProbeInterval)\\b");

	private static final Pattern DURATION_PROPERTY = Pattern.compile("(redlock\\.[a-z-]+) (\\d+)ms\\b");

	private static final Pattern NODE = Pattern.compile("\\bNode (\\d+)\\b");

	private static final Pattern CLUSTER = Pattern.compile("\\bCluster (\\d+)\\b");

	private final String description;

	private final String action;

	/**
	 * Creates an exception.
	 * @param description what is wrong, naming the property
	 * @param action what to do about it
	 */
	public InvalidRedlockConfigurationException(String description, String action) {
		super(description + ". " + action);
		this.description = description;
		this.action = action;
	}

	/**
	 * Restates a builder's complaint in terms of the {@code redlock.*} properties.
	 * @param ex the builder's exception
	 * @param clusters whether the quorum is of clusters, whose seeds the builder numbers
	 * within each cluster
	 * @return the exception to throw
	 */
	static InvalidRedlockConfigurationException from(InvalidOptionException ex, boolean clusters) {
		String problem = toProperties(ex.getProblem(), clusters);
		return new InvalidRedlockConfigurationException("Invalid redlock configuration: " + problem,
				capitalize(toProperties(ex.getFix(), clusters)) + "." + bareNumberHint(problem));
	}

	/**
	 * Says that a bare number is read as milliseconds when the problem names a duration
	 * property in milliseconds: {@code redlock.default-ttl=30} is 30ms, which reads like
	 * a mistake only once this is said.
	 */
	private static String bareNumberHint(String problem) {
		Matcher duration = DURATION_PROPERTY.matcher(problem);
		String property = null;
		long smallest = Long.MAX_VALUE;
		while (duration.find()) {
			long millis = Long.parseLong(duration.group(2));
			if (millis < smallest) {
				smallest = millis;
				property = duration.group(1);
			}
		}
		if (property == null) {
			return "";
		}
		return " A bare number in a duration property is read as milliseconds" + ((smallest < 1000)
				? " (" + property + "=" + smallest + " is " + smallest + "ms: write " + smallest + "s for seconds)"
				: "") + ".";
	}

	private static String toProperties(String text, boolean clusters) {
		String result = CLUSTER.matcher(text).replaceAll("redlock.clusters[$1]");
		// the builder numbers a cluster's seeds as nodes, from 0 within each cluster
		result = NODE.matcher(result)
			.replaceAll(clusters ? "seed $1 of a redlock.clusters entry" : "redlock.nodes[$1]");
		Matcher option = OPTION.matcher(result);
		StringBuilder out = new StringBuilder();
		while (option.find()) {
			option.appendReplacement(out, "redlock." + kebab(option.group(1)));
		}
		option.appendTail(out);
		return out.toString();
	}

	private static String kebab(String camel) {
		return camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	private static String capitalize(String text) {
		return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
	}

	/**
	 * Returns what is wrong.
	 * @return the description
	 */
	public String getDescription() {
		return this.description;
	}

	/**
	 * Returns what to do about it.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
