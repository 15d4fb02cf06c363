package io.github.redlock.engine.waiting;

import java.util.concurrent.TimeUnit;

import io.github.redlock.engine.node.TurnProtocol;
import io.github.redlock.engine.quorum.MonotonicClock;
import org.jspecify.annotations.Nullable;

/**
 * What one line heard of the release hints of its key ({@link ReleaseHints}): which
 * release it heard last, from how many nodes, and how many it expects. Every node of a
 * release publishes the same message, so a hint of the release heard last is an echo from
 * another node; and a line whose turn a hint names waits for the other nodes' hints of
 * that release, so that none still holds the released value when it tries. Guarded by its
 * line's monitor: every method is called holding it.
 * <p>
 * <b>Invariants</b>:
 * <ul>
 * <li>{@link #gathering} is set only by a hint that names this line while its head
 * sleeps, whose timer it then sets to at most {@link #HINTS_GRACE_NANOS}; the hint that
 * completes the count, a hint of another release, or that timer ({@link #shortfall})
 * clears it.</li>
 * <li>{@link #expected} follows the nodes that publish: raised to as many as were heard
 * of one release, lowered to as many as came (at least one) after three waits in a row
 * ran out.</li>
 * </ul>
 *
 * @author redlock contributors
 */
final class HintGathering {

	/**
	 * The longest a line whose turn a release hint named waits for the same hint from the
	 * other nodes before it tries ({@link Waiting#hint}).
	 */
	static final long HINTS_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	private final MonotonicClock clock;

	/**
	 * The release of the last release hint heard for the key (its token), or
	 * {@code null}.
	 */
	@Nullable String lastHint;

	/** Whether the last release hint heard was this line's turn. */
	private boolean lastTurn;

	/** How many nodes' hints of the last release were heard. */
	private int heard;

	/**
	 * How many nodes' hints of a release this line expects: the nodes, fewer once a wait
	 * for them ran out (a node down or unsubscribed), more once more came.
	 */
	private int expected;

	/** Waits for the nodes' hints that ran out in a row ({@link #shortfall}). */
	private int shortfalls;

	/**
	 * Whether its sleeping head waits for the other nodes' hints of a release that named
	 * this line ({@link #hear}), until its timer fires.
	 */
	private boolean gathering;

	HintGathering(int expected, MonotonicClock clock) {
		this.expected = expected;
		this.clock = clock;
	}

	/**
	 * Hears a release hint ({@link Waiting#hint}): an echo of the release heard last
	 * counts toward the nodes expected, or marks the head's attempt worth a retry soon
	 * ({@link Place#echo}); a new release that is another process's turn wakes nobody,
	 * and one that names this line has its sleeping head wait for the other nodes' hints.
	 * <p>
	 * An echo wakes nobody: woken by it, the head would try again as soon as its attempt
	 * was refused, while the winner of the release held the lock, one more refused
	 * attempt per waiting process and release. It still counts: the attempt that the
	 * first hint started may have reached a node before that node's deletion of the same
	 * release and been refused by the released value itself, so a failed attempt then
	 * tries again within {@link Place#ECHO_DELAY_NANOS} rather than at its poll (30 s in
	 * WaitingIntegrationTests' hint tests).
	 * @param message the message published, not empty
	 * @param head the line's head, or {@code null} while this registry holds the key
	 * @param lineTurn the line's turn, told when a hint names it
	 * @param lineId the id of this registry's lines in the nodes' queues
	 * @return whether to wake the head
	 */
	boolean hear(String message, @Nullable Place head, LineTurn lineTurn, String lineId) {
		TurnProtocol.Hint hint = TurnProtocol.hint(message);
		String release = hint.token();
		boolean more = hint.more();
		boolean turn = hint.turnOf(lineId);
		if (turn && more) {
			// its release must name the next: see LineTurn.releaseSpec
			lineTurn.look = true;
		}
		if (release.equals(this.lastHint)) {
			this.heard++;
			if (this.heard > this.expected) {
				this.expected = this.heard;
			}
			if (this.gathering && head != null && head.phase == Place.SLEEPING) {
				if (this.heard < this.expected) {
					return false;
				}
				this.gathering = false; // every node is free of the release: try
				this.shortfalls = 0;
			}
			else {
				// a node that named this line after another named someone else
				// (their queues differ) counts as this line's turn heard late
				if (head != null && (turn || this.lastTurn)) {
					head.echo();
				}
				return false;
			}
		}
		else {
			this.lastHint = release;
			this.lastTurn = turn;
			this.heard = 1;
			this.gathering = false;
			if (!turn) {
				// another process's turn: it tries, this line waits for its own
				return false;
			}
			if (hint.named() != null) {
				lineTurn.named(); // out of the nodes' queues
				if (head != null && head.phase == Place.SLEEPING && this.expected > 1) {
					// this line's turn: tried once every node published the release, so
					// that none of them still holds the released value and refuses the
					// attempt, which would leave its fencing counter behind the others'
					// and cost a later acquisition a second round; at most
					// HINTS_GRACE_NANOS later
					this.gathering = true;
					head.cancelTimer();
					head.schedule(Math.min(HINTS_GRACE_NANOS, head.deadline - this.clock.nanoTime()));
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * The head's timer fired while it waited for the nodes' hints: not every node's hint
	 * came in time, a node slow for a moment, or down (or not subscribed), when it
	 * happens three times in a row; then it expects as many as came.
	 */
	void shortfall() {
		if (this.gathering) {
			this.gathering = false;
			if (++this.shortfalls >= 3) {
				this.expected = Math.max(1, this.heard);
				this.shortfalls = 0;
			}
		}
	}

}
