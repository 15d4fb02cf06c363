package io.github.redlock.engine.quorum;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The values this registry asks the nodes to start a key's fencing counter from, or to
 * lift it to: the acquire scripts set a counter to the larger of this value and the
 * counter plus one, so that every node of an attempt on a new key starts it from the same
 * value and the token needs no second round. The value is the time the nodes' clocks
 * agree on, in µs, as this registry reckons it ({@code FleetClocks}): the safety argument
 * rests on it growing with true time, as a node's clock does (see {@code FencingRound}).
 * <p>
 * <b>Invariants.</b> Every value handed out is above every value this registry handed out
 * before, and not below the agreed time it was given.
 *
 * @author redlock contributors
 */
final class FencingStarts {

	private final AtomicLong last = new AtomicLong();

	/**
	 * Returns the next start: {@code agreedMicros}, or one above the last one when that
	 * was not below it (the clocks' median moved back, or two attempts within a µs).
	 */
	long next(long agreedMicros) {
		while (true) {
			long previous = this.last.get();
			long next = Math.max(agreedMicros, previous + 1);
			if (this.last.compareAndSet(previous, next)) {
				return next;
			}
		}
	}

}
