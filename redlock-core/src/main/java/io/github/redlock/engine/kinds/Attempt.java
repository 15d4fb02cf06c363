package io.github.redlock.engine.kinds;

import java.util.Arrays;

/**
 * One attempt of an {@link AcquisitionLoop}, fixed when it starts: everything sent for it
 * and the lease it makes name its value and slot. A class rather than a record:
 * {@link SentAttempt} extends it with what the attempt's replies need, so that an attempt
 * is one object rather than a lambda per step.
 *
 * @author redlock contributors
 */
class Attempt {

	private final int number;

	private final String value;

	private final int slot;

	private final String[] args;

	/**
	 * @param number its number, from 1
	 * @param value its lock value
	 * @param slot the permit slot it asks for ({@link AcquisitionLoop#nextSlot}; 0 for
	 * the kinds without slots)
	 * @param args the acquire script's arguments that every node gets alike
	 * ({@link AcquisitionLoop#args})
	 */
	Attempt(int number, String value, int slot, String[] args) {
		this.number = number;
		this.value = value;
		this.slot = slot;
		this.args = args;
	}

	/** Returns its number, from 1. */
	final int number() {
		return this.number;
	}

	/** Returns its lock value. */
	final String value() {
		return this.value;
	}

	/** Returns the permit slot it asks for (0 for the kinds without slots). */
	final int slot() {
		return this.slot;
	}

	/**
	 * Returns the acquire script's arguments that every node gets alike, made once per
	 * attempt: never changed, since every node's send reads them.
	 */
	final String[] args() {
		return this.args;
	}

	/**
	 * Returns the acquire script's arguments for a node whose restart guard checks a
	 * marker: these, then the marker's value and the node's floor.
	 */
	final String[] argsWithMarker(String marker, String floor) {
		String[] withMarker = Arrays.copyOf(this.args, this.args.length + 2);
		withMarker[this.args.length] = marker;
		withMarker[this.args.length + 1] = floor;
		return withMarker;
	}

}
