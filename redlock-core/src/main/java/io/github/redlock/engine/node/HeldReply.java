package io.github.redlock.engine.node;

/**
 * Reads the acquire script's reply "held by another owner" ({@link Script#ACQUIRE}): a
 * negative number holding the holder's remaining milliseconds in its low 33 bits and the
 * node's fencing counter's low 19 bits (plus one, zero without a counter) above them.
 *
 * @author redlock contributors
 */
public final class HeldReply {

	private static final int MILLIS_BITS = 33;

	private static final long MILLIS_MASK = (1L << MILLIS_BITS) - 1;

	private static final long COUNTER_MODULUS = 1L << 19;

	private HeldReply() {
	}

	/**
	 * Returns the holder's remaining milliseconds from a negative reply.
	 */
	public static long millis(long reply) {
		return (-reply - 1) & MILLIS_MASK;
	}

	/**
	 * Returns the node's fencing counter modulo 2^19 from a negative reply, or {@code -1}
	 * when the node had no counter.
	 */
	public static long counterLow(long reply) {
		return ((-reply - 1) >>> MILLIS_BITS) - 1;
	}

	/**
	 * Returns whether {@code token} is above a counter whose low bits are
	 * {@code counterLow}, assuming the two are less than 2^18 apart (one key's counters
	 * on different nodes differ by the acquisitions some nodes missed).
	 */
	public static boolean above(long token, long counterLow) {
		long difference = Math.floorMod(token - counterLow, COUNTER_MODULUS);
		return difference > 0 && difference < COUNTER_MODULUS / 2;
	}

}
