package io.github.redlock.autoconfigure;

/**
 * What start-up does with a {@code redlock.*} property that no redlock module binds, such
 * as {@code redlock.restart-gaurd}: each is named with the property it probably meant.
 *
 * @author redlock contributors
 */
public enum UnknownPropertyPolicy {

	/** Logs one WARN line per unknown property, and starts. */
	WARN,

	/** Fails start-up, naming every unknown property. */
	FAIL,

	/** Says nothing. */
	IGNORE

}
