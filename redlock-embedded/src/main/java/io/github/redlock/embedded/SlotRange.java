package io.github.redlock.embedded;

/**
 * A range of cluster hash slots, both ends included.
 *
 * @param first the first slot
 * @param last the last slot, not before {@code first}
 * @author redlock contributors
 */
public record SlotRange(int first, int last) {

	/**
	 * Checks that the range is a valid one.
	 * @param first the first slot
	 * @param last the last slot
	 */
	public SlotRange {
		if (first < 0 || last >= ClusterSlots.COUNT || first > last) {
			throw new IllegalArgumentException("A slot range goes from 0 to " + (ClusterSlots.COUNT - 1)
					+ ", first to last, not " + first + "-" + last);
		}
	}

	/**
	 * Returns the range of one slot.
	 * @param slot the slot
	 * @return the range
	 */
	public static SlotRange of(int slot) {
		return new SlotRange(slot, slot);
	}

	/**
	 * Returns whether the range holds a slot.
	 * @param slot the slot
	 * @return whether it is in the range
	 */
	public boolean contains(int slot) {
		return slot >= this.first && slot <= this.last;
	}

	/**
	 * Returns how many slots the range holds.
	 * @return the count
	 */
	public int size() {
		return this.last - this.first + 1;
	}

	@Override
	public String toString() {
		return (this.first == this.last) ? String.valueOf(this.first) : this.first + "-" + this.last;
	}

}
