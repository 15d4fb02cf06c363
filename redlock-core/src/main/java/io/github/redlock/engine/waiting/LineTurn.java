package io.github.redlock.engine.waiting;

import java.util.concurrent.TimeUnit;

import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.node.TurnProtocol;

/**
 * One line's turn among the processes waiting for its key: whether it has the turn and
 * since when, whether the nodes keep it queued and under which stamp, and whether its
 * next release must look at the nodes' queues. It turns these into the queue arguments of
 * the release script ({@link Script#RELEASE}) and the queue script
 * ({@link Script#QUEUE_WAITER}). Guarded by its line's monitor: every method is called
 * holding it.
 * <p>
 * A line whose attempt a holder refused queues itself on the nodes
 * ({@link Script#QUEUE_WAITER}); a release names the first line queued in its hint
 * ({@link Script#RELEASE}), and only that line tries, once every node's hint of the
 * release came or {@link HintGathering#HINTS_GRACE_NANOS} passed. A line hears other
 * lines' turns and keeps waiting, polling ever less often ({@link Place#pollBackoff}) in
 * case the line named is gone. A line with waiters of its own keeps the turn for
 * {@link Waiting#TURN_NANOS} ({@link LineHold#releasedKeepingTurn}: its next waiter tries
 * as the release is sent); after that its release names the next process and queues this
 * line behind it ({@link LineHold#released}). A line that the nodes keep queued and whose
 * waiters all left takes itself out of the queues, and so does one whose waiter acquired
 * without a release naming it (the holder's value expired, or a read or write lock's
 * release woke it): its next release looks at the queue, for the lines queued with it. A
 * line's entry lives at most {@link Turns#entryNanos}, renewed by each of its polls that
 * a holder refuses, so that the entry of a process that died goes within minutes.
 * <p>
 * <b>Invariants</b>:
 * <ul>
 * <li>{@link #queuedUntil} is non-zero only while the line believes the nodes keep it
 * queued: set when it queued itself ({@link #queue}) or its release queued it
 * ({@link #holderGone}; until its entry's expiry, {@link Turns#entryNanos}), cleared when
 * a hint named it ({@link #named}), when it acquired ({@link #acquired}, which then, if
 * no hint named it, has the caller take it out of the queues), or when its release queued
 * nothing. Believing it queued when it is not costs at most polls, never the lock.</li>
 * <li>{@link #look} is set while other processes may be queued for the key although no
 * waiter marked this line's value on the nodes (a hint named this line with others queued
 * behind it, or this line kept the turn), and cleared by the release that looks. A
 * release looks at the queue only when someone may be in it: when a line queued while the
 * released value held the key (queueing marks the value), or when {@link #look} is set;
 * so an uncontended cycle costs the nodes no queue read and no publish.</li>
 * </ul>
 *
 * @author redlock contributors
 */
final class LineTurn {

	private final Turns turns;

	/** Polls by its head since the nodes queued it ({@link #pollBackoff}). */
	private int polls;

	/**
	 * Whether this line has the turn: it acquired, and has not handed the turn to another
	 * process or run out of waiters since ({@link Waiting#TURN_NANOS}).
	 */
	private boolean inTurn;

	/** When its turn began (on the registry's clock), while {@link #inTurn}. */
	private long turnSince;

	/**
	 * Until when (on the registry's clock) the nodes keep this line queued, as far as it
	 * knows. Compared only while {@link #queued}.
	 */
	private long queuedUntil;

	/**
	 * The stamp its entry in the nodes' queues was given ({@link #queue}), while
	 * {@link #queued}: queueing again keeps its place.
	 */
	private long queueStamp;

	/**
	 * Whether other processes may be queued for the key although no waiter marked this
	 * line's value on the nodes: a hint named this line with others queued behind it, or
	 * a release of this line kept the turn. Its next release that does not keep the turn
	 * looks at the nodes' queues ({@link Script#RELEASE}), and clears it.
	 */
	boolean look;

	/**
	 * How long the release on its way would keep this line queued, if a node queues it,
	 * or 0.
	 */
	private long queuedFor;

	LineTurn(Turns turns) {
		this.turns = turns;
	}

	/** Whether {@link #queuedUntil} is in the future. */
	boolean queued(long now) {
		return this.queuedUntil != 0 && this.queuedUntil - now > 0;
	}

	/**
	 * The queue argument of the release of a held lease ({@link Waiting#releaseArgs}):
	 * keeps the turn while waiters are left and the turn lasts, else names the next
	 * process and queues this line behind it while waiters are left.
	 * @param longest the longest that a waiter of the line may still wait, or 0
	 */
	String releaseSpec(long now, long longest) {
		String spec = this.turns.idleSpec;
		if (longest > 0 && this.inTurn && now - this.turnSince < this.turns.turnNanos) {
			spec = this.turns.keepSpec;
			// the queue stays as it is: the release that ends the turn looks
			this.look = true;
		}
		else {
			if (longest > 0) {
				long entry = this.turns.entryNanos(longest);
				spec = TurnProtocol.queueBehind(this.turns.lineId, TimeUnit.NANOSECONDS.toMillis(entry) + 1,
						this.turns.stamps.getAsLong(), this.look);
				this.queuedFor = entry;
			}
			else if (this.look) {
				spec = this.turns.lookSpec;
			}
			this.look = false; // this release looks, and names the next if any
		}
		return spec;
	}

	/**
	 * The queue argument of the release of a lost lease
	 * ({@link Waiting#lostReleaseArgs}): it looks, and queues this line in its place
	 * while waiters are left, leaving the turn and {@link #look} to the releases of held
	 * leases.
	 */
	String lostReleaseSpec(long now, long longest) {
		String spec = this.turns.lookSpec;
		if (longest > 0) {
			if (!queued(now)) {
				this.queueStamp = this.turns.stamps.getAsLong();
			}
			long entry = this.turns.entryNanos(longest);
			this.queuedUntil = now + entry;
			spec = TurnProtocol.queueBehind(this.turns.lineId, TimeUnit.NANOSECONDS.toMillis(entry) + 1,
					this.queueStamp, true);
		}
		return spec;
	}

	/**
	 * The queue script's arguments after a holder refused the head
	 * ({@link Place#queueArgs}).
	 */
	String[] queue(long now, long longest) {
		// queued again, in its place, when the nodes keep it queued already:
		// this marks the holder's value, whose release then names the next line,
		// and queues it where the last queueing found the key free and queued
		// nothing (Script.QUEUE_WAITER)
		if (!queued(now)) {
			this.queueStamp = this.turns.stamps.getAsLong();
		}
		long entry = this.turns.entryNanos(longest);
		this.queuedUntil = now + entry;
		return TurnProtocol.queue(this.queueStamp, this.turns.lineId, TimeUnit.NANOSECONDS.toMillis(entry) + 1);
	}

	/**
	 * A waiter of the line acquired: it is out of the queues, and has the turn.
	 * @return whether the caller must take the line out of the nodes' queues
	 */
	boolean acquired() {
		boolean unqueue = false;
		if (queued(this.turns.clock.nanoTime())) {
			// acquired without a release naming this line (which takes its entry out):
			// the holder's value expired, or a read or write lock was released. Its
			// entry would stay, and the next release would name a line that waits for
			// nothing; and the lines queued with it, whose refusals may not have marked
			// this line's value, are named by its release
			unqueue = true;
			this.look = true;
		}
		this.queuedUntil = 0;
		this.polls = 0;
		if (!this.inTurn) {
			this.inTurn = true;
			this.turnSince = this.turns.clock.nanoTime();
		}
		return unqueue;
	}

	/**
	 * The line's last waiter left without a lease and none holds it.
	 * @return whether the caller must take the line out of the nodes' queues
	 */
	boolean emptied() {
		if (queued(this.turns.clock.nanoTime())) {
			this.queuedUntil = 0;
			return true;
		}
		return false;
	}

	/**
	 * A lease of this registry on the key ended (its {@link LineHold} ended).
	 * @param how how it ended
	 * @param headWaits whether a waiter of the line may try now
	 */
	void holderGone(LineHold.End how, boolean headWaits) {
		if (how == LineHold.End.RELEASED_QUEUED && this.queuedFor > 0) {
			this.queuedUntil = this.turns.clock.nanoTime() + this.queuedFor;
		}
		else if (how == LineHold.End.RELEASED || how == LineHold.End.RELEASED_KEPT) {
			this.queuedUntil = 0;
		}
		this.queuedFor = 0;
		if (how == LineHold.End.RELEASED_QUEUED || !headWaits) {
			this.inTurn = false; // handed to another process, or nobody here waits
		}
		else if (how == LineHold.End.RELEASED && this.inTurn) {
			// no other process was queued: a new turn, which its next releases keep
			this.turnSince = this.turns.clock.nanoTime();
		}
	}

	/** A release hint named this line: the nodes took it out of their queues. */
	void named() {
		this.queuedUntil = 0;
		this.polls = 0;
	}

	/**
	 * By how many doublings to lengthen the head's next poll ({@link Place#pollBackoff}):
	 * one more per poll since the nodes queued the line, up to 4, or 0 once they keep it
	 * queued no more.
	 */
	int pollBackoff() {
		if (!queued(this.turns.clock.nanoTime())) {
			this.polls = 0;
			return 0;
		}
		return Math.min(this.polls++, 4);
	}

}
