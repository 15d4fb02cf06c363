package io.github.redlock.engine.waiting;

import java.util.ArrayDeque;

import io.github.redlock.engine.quorum.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * The acquisitions of one registry waiting for one key, and its leases on the key. Its
 * state is guarded by its monitor, which {@link Waiting} and {@link Place} hold for every
 * read and write of it.
 * <p>
 * <b>Invariants</b>:
 * <ul>
 * <li>{@link #holders} counts this registry's leases on the key, and {@link #ownPermits}
 * its permits on a semaphore's key, each through a {@link LineHold} that only
 * {@link #hold} and {@link #permitHold} make: one more when a waiter
 * {@linkplain Place#leaveHolding leaves} with a lease, or through {@link Waiting#holding}
 * for a lease acquired without standing in line (or after its waiter gave up), or
 * {@link Waiting#permitHeld}; one less only when that hold ends, which it does at most
 * once (the lease ends it when it is released on a quorum, lost, or reaches its end). So
 * nobody lowers a count they did not raise, and neither goes below zero.</li>
 * <li>Release hints are asked for exactly while the head sleeps and no lease of this
 * registry holds the key (on a semaphore's line, whose permits are not {@link #holders}:
 * while this registry holds fewer of its permits, {@link #ownPermits}, than it has):
 * {@link #updateHints}.</li>
 * <li>A line leaves the map only when it has no waiter, no holder and no own permit
 * ({@link #retireIfEmpty}); once out, it is {@link #retired} and nobody enters it.</li>
 * </ul>
 *
 * @author redlock contributors
 */
final class Line {

	private final Waiting waiting;

	final String key;

	final ArrayDeque<Place> waiters = new ArrayDeque<>(4);

	int holders;

	/**
	 * A semaphore's line: the permits this registry holds ({@link Waiting#permitHeld}).
	 */
	int ownPermits;

	/** A semaphore's line: its permit count, or 0 for a lock's line. */
	int permits;

	/** Removed from the map: a newcomer takes a new line. */
	boolean retired;

	/** Whether release hints for the key are asked for, as the head waits. */
	boolean hinted;

	/**
	 * The acquisition of the lease of this registry on the key released last, or
	 * {@code null}: volatile, since every attempt reads it without the monitor
	 * ({@link Place#released}).
	 */
	volatile @Nullable QuorumCall released;

	/** Its turn among processes and its place in the nodes' queues. */
	final LineTurn turn;

	/**
	 * What it heard of the key's release hints: made when it first hears one, since most
	 * lines (a key locked once, uncontended) never do. Read through {@link #hints()}.
	 */
	private @Nullable HintGathering hints;

	Line(Waiting waiting, String key) {
		this.waiting = waiting;
		this.key = key;
		this.turn = new LineTurn(waiting.turns);
	}

	/** Returns what it heard of the key's release hints. Called holding its monitor. */
	HintGathering hints() {
		HintGathering gathering = this.hints;
		if (gathering == null) {
			gathering = new HintGathering(this.waiting.hintNodes, this.waiting.clock);
			this.hints = gathering;
		}
		return gathering;
	}

	/** The longest that a waiter of this line may still wait, or 0 without one. */
	long longestWait(long now) {
		long longest = 0;
		for (Place waiter : this.waiters) {
			longest = Math.max(longest, waiter.deadline - now);
		}
		return longest;
	}

	/**
	 * Puts a waiter at the back: the head attempts at once unless a lease of this
	 * registry holds the key; a head behind such a lease sleeps until the lease ends or
	 * its deadline, and a waiter behind the head waits with only its deadline timer.
	 * Called holding the line's monitor.
	 */
	void enter(Place waiter) {
		this.waiters.addLast(waiter);
		if (this.waiters.size() > 1) {
			waiter.phase = Place.QUEUED;
			waiter.schedule(waiter.deadline - this.waiting.clock.nanoTime());
		}
		else if (this.holders == 0) {
			waiter.phase = Place.ATTEMPTING;
			waiter.startsNow = true;
		}
		else {
			waiter.phase = Place.SLEEPING;
			// woken when that lease ends
			waiter.schedule(waiter.deadline - this.waiting.clock.nanoTime());
		}
	}

	/**
	 * Counts a lease of this registry on the key. Called holding the line's monitor.
	 * @param unqueue as for {@link LineHold#unqueue}
	 * @return the hold that its lease ends
	 */
	LineHold hold(boolean unqueue) {
		this.holders++;
		return new LineHold(this, null, unqueue);
	}

	/**
	 * Counts a permit of this registry on a semaphore's key ({@link Waiting#permitHeld}).
	 * Called holding the line's monitor.
	 * @return the hold that its lease ends
	 */
	LineHold permitHold(int permits, String message) {
		this.ownPermits++;
		this.permits = permits;
		updateHints();
		return new LineHold(this, message, false);
	}

	/**
	 * A permit of this registry ended (its {@link LineHold} ended): the head is woken
	 * unless the message is an echo of the release heard last. A sleeping head is marked
	 * attempting before the hints are updated ({@link #startHead}), or the permit that no
	 * longer fills the semaphore would have them asked for on every node, and dropped
	 * again as the head tries. Called holding the line's monitor.
	 * @return the head to run once the monitor is let go, or {@code null}
	 */
	@Nullable Place permitGone(String message) {
		this.ownPermits--;
		Place head = (this.holders == 0) ? this.waiters.peekFirst() : null;
		Place woken = null;
		if (head != null && message.equals(hints().lastHint)) {
			head.echo();
		}
		else {
			woken = startHead(head);
		}
		hints().lastHint = message;
		retireIfEmpty();
		return woken;
	}

	/**
	 * A lease of this registry ended (its {@link LineHold} ended): the head is woken,
	 * unless the release queued this line behind another process's, when a sleeping head
	 * waits for the hint naming this line or its poll. Called holding the line's monitor.
	 * @return the head to run once the monitor is let go, or {@code null}
	 */
	@Nullable Place holderGone(LineHold.End how) {
		this.holders--;
		Place head = (this.holders == 0) ? this.waiters.peekFirst() : null;
		this.turn.holderGone(how, head != null);
		Place woken = null;
		if (how == LineHold.End.RELEASED_QUEUED && head != null && head.phase == Place.SLEEPING) {
			// another process's turn: its hint, or this poll should it never come; tried
			// at once, the head would try beside the line named, and one of the two would
			// be refused at every release
			head.cancelTimer();
			head.schedule(Math.min(this.waiting.retryDelay(-1), head.deadline - this.waiting.clock.nanoTime()));
		}
		else {
			woken = startHead(head);
		}
		retireIfEmpty();
		return woken;
	}

	/**
	 * After a lease or permit of this registry ended: marks a sleeping head attempting
	 * and returns it, to be run once the monitor is let go, or tells an attempting head
	 * that it was woken meanwhile. Attempting from now, before the hints are updated: a
	 * head still marked sleeping would have them asked for on every node, and dropped
	 * again as soon as it tries, at every hand-over within this registry.
	 * @param head the line's head, or {@code null} while this registry holds the key
	 * @return the head to run, or {@code null}
	 */
	private static @Nullable Place startHead(@Nullable Place head) {
		if (head != null && head.phase == Place.SLEEPING) {
			head.cancelTimer();
			head.phase = Place.ATTEMPTING;
			return head;
		}
		if (head != null && head.phase == Place.ATTEMPTING) {
			head.woken = true;
		}
		return null;
	}

	/**
	 * Describes the line for diagnostics in tests. Called holding the line's monitor.
	 */
	String describe() {
		StringBuilder phases = new StringBuilder();
		for (Place waiter : this.waiters) {
			phases.append((phases.length() > 0) ? "," : "").append(waiter.phase);
		}
		return "waiters [" + phases + "] (" + Place.QUEUED + " queued, " + Place.ATTEMPTING + " attempting, "
				+ Place.SLEEPING + " sleeping), holders " + this.holders + ", own permits " + this.ownPermits
				+ ", hinted " + this.hinted;
	}

	/** Called holding the line's monitor. */
	void retireIfEmpty() {
		if (this.waiters.isEmpty() && this.holders == 0 && this.ownPermits == 0) {
			this.retired = true;
			this.waiting.lines.remove(this.key, this);
		}
		updateHints();
	}

	/**
	 * Asks for release hints while the head sleeps and no lease of this registry holds
	 * the key (for a semaphore: fewer of its permits than it has): only then can a
	 * release come from elsewhere. Called holding the line's monitor.
	 */
	void updateHints() {
		ReleaseHints.Channels releaseHints = this.waiting.hints;
		if (releaseHints == null) {
			return;
		}
		Place head = this.waiters.peekFirst();
		boolean wanted = !this.retired && this.holders == 0 && head != null && head.phase == Place.SLEEPING
				&& (this.permits == 0 || this.ownPermits < this.permits);
		if (wanted != this.hinted) {
			this.hinted = wanted;
			if (wanted) {
				releaseHints.want(this.key);
			}
			else {
				releaseHints.unwant(this.key);
			}
		}
	}

}
