package io.github.redlock.engine.waiting;

import org.jspecify.annotations.Nullable;

/**
 * One lease of this registry as its key's line counts it: made when the line counts the
 * lease ({@link Waiting.Waiter#leaveHolding}, {@link Waiting#holding},
 * {@link Waiting#permitHeld}), kept by the lease, and ended by it once, saying how the
 * lease ended. Its end lowers the count it raised, and only that one.
 * <p>
 * <b>Invariant:</b> a hold ends at most once: its first end is told to its line, any
 * later one changes nothing. Its flag is guarded by its line's monitor, as the count is.
 *
 * @author redlock contributors
 */
public final class LineHold {

	private final Line line;

	/**
	 * A permit's hold: the message its release publishes on the nodes
	 * ({@link Waiting#permitHeld}); {@code null} for a lease's hold.
	 */
	private final @Nullable String permitMessage;

	private final boolean unqueue;

	/** Guarded by the line's monitor. */
	private boolean ended;

	LineHold(Line line, @Nullable String permitMessage, boolean unqueue) {
		this.line = line;
		this.permitMessage = permitMessage;
		this.unqueue = unqueue;
	}

	/**
	 * Returns whether the acquisition that took this hold as it left its line
	 * ({@link Waiting.Waiter#leaveHolding}) must take the line out of the nodes' queues:
	 * it acquired while they keep the line queued, without a release naming it.
	 */
	public boolean unqueue() {
		return this.unqueue;
	}

	/**
	 * The lease ended without a release (lost, or at its end): the line's head tries at
	 * once.
	 */
	public void ended() {
		end(End.ENDED);
	}

	/**
	 * A quorum of nodes is done with the lease's release. The line's head tries at once,
	 * unless the release queued this line behind another process's, which the release
	 * hint named: then the head waits for the hint that names this line when that process
	 * releases, or for its poll, should that never come (the line named gave up, or its
	 * process died).
	 * @param queuedBehind whether a node named another process's line in its release hint
	 * and queued this line behind it
	 */
	public void released(boolean queuedBehind) {
		end(queuedBehind ? End.RELEASED_QUEUED : End.RELEASED);
	}

	/**
	 * The lease's release is on its way, and this line keeps the turn
	 * ({@link Waiting#TURN_NANOS}): the head tries at once, its attempt going to each
	 * node after the release ({@link Waiting.Waiter#released}), without waiting for a
	 * quorum's reply.
	 */
	public void releasedKeepingTurn() {
		end(End.RELEASED_KEPT);
	}

	/**
	 * Tells the line that the lease ended, unless this hold ended already. A permit's
	 * hold ends alike however the permit ended ({@link Line#permitGone}).
	 */
	private void end(End how) {
		Place woken;
		synchronized (this.line) {
			if (this.ended) {
				return;
			}
			this.ended = true;
			woken = (this.permitMessage != null) ? this.line.permitGone(this.permitMessage) : this.line.holderGone(how);
		}
		if (woken != null) {
			Trampoline.run(woken);
		}
	}

	/** How a lease ended, as its line and its turn need to know. */
	enum End {

		/** Without a release: lost, or at its end. */
		ENDED,

		/** Released, and no node queued this line behind another process's. */
		RELEASED,

		/**
		 * Released, and a node named another process's line in its release hint and
		 * queued this line behind it.
		 */
		RELEASED_QUEUED,

		/** Its release is on its way, and this line keeps the turn. */
		RELEASED_KEPT

	}

}
