package io.github.redlock.engine.node;

import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.cluster.SlotHash;

/**
 * The restart guard's markers of one cluster member's slots, as this client last saw
 * them: one per slot, whichever master owned it then, so that a slot that moves to
 * another master by resharding brings the marker the client knew (a master is not made to
 * look restarted by a slot it was given), and a marker replaced after a failover is seen
 * as changed by every client that knew the old one.
 * <p>
 * <b>Invariants.</b> A slot's entry is the marker of the latest check that read it, on
 * whichever master of the member; only {@link SlotCheck}'s results, through a master's
 * {@link RestartGuardState}, write it.
 *
 * @author redlock contributors
 */
public final class SlotMarkers {

	private final KeyLayout keys;

	private final AtomicReferenceArray<String> known = new AtomicReferenceArray<>(SlotHash.SLOT_COUNT);

	/**
	 * Creates the markers of one member, none known yet.
	 * @param keys where the slots' markers and stamps are
	 */
	public SlotMarkers(KeyLayout keys) {
		this.keys = keys;
	}

	KeyLayout keys() {
		return this.keys;
	}

	/**
	 * Returns the marker this client last saw for the slot, or {@code null}.
	 */
	String known(int slot) {
		return this.known.get(slot);
	}

	void saw(int slot, String marker) {
		this.known.set(slot, marker);
	}

}
