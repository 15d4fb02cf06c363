package io.github.redlock.engine.node;

import io.lettuce.core.cluster.SlotHash;

/**
 * A short hash tag for each cluster slot, so that a key of the slot itself (its restart
 * guard marker and owner stamp) can be named, and passed to a script beside the keys of a
 * lock that hashes to the same slot: a script's keys must all be in one slot.
 * <p>
 * <b>Invariants.</b> The tag of a slot hashes to that slot ({@link SlotHash}, CRC16 as
 * the cluster specification computes it), holds no brace, and is the same in every
 * client, so that every client names the same marker for a slot: the table is the first
 * string, in the order of length and then of the alphabet below, that hashes to each
 * slot.
 *
 * @author redlock contributors
 */
final class SlotTags {

	private static final String ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

	private static final String[] TAGS = build();

	private SlotTags() {
	}

	/**
	 * Returns the tag of a slot.
	 * @param slot the slot, from 0 to 16383
	 * @return a tag that hashes to it
	 */
	static String tag(int slot) {
		return TAGS[slot];
	}

	private static String[] build() {
		String[] tags = new String[SlotHash.SLOT_COUNT];
		int missing = tags.length;
		for (int length = 1; missing > 0; length++) {
			char[] chars = new char[length];
			int combinations = (int) Math.pow(ALPHABET.length(), length);
			for (int n = 0; n < combinations && missing > 0; n++) {
				int rest = n;
				for (int i = length - 1; i >= 0; i--) {
					chars[i] = ALPHABET.charAt(rest % ALPHABET.length());
					rest /= ALPHABET.length();
				}
				String tag = new String(chars);
				int slot = SlotHash.getSlot(tag);
				if (tags[slot] == null) {
					tags[slot] = tag;
					missing--;
				}
			}
		}
		return tags;
	}

}
