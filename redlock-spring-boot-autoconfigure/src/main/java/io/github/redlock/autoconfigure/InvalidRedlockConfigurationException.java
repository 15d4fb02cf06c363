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
			"\\b(nodeTimeout|connectTimeout|driftFactor|retryDelay|retryJitter|keyPrefix|defaultTtl|defaultWaitTime|maxTtl|maxHold|fencingRetention)\\b");

	private static final Pattern NODE = Pattern.compile("\\bNode (\\d+)\\b");

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
	 * @return the exception to throw
	 */
	static InvalidRedlockConfigurationException from(InvalidOptionException ex) {
		return new InvalidRedlockConfigurationException(
				"Invalid redlock configuration: " + toProperties(ex.getProblem()),
				capitalize(toProperties(ex.getFix())) + ".");
	}

	static String toProperties(String text) {
		Matcher node = NODE.matcher(text);
		String result = node.replaceAll("redlock.nodes[$1]");
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
