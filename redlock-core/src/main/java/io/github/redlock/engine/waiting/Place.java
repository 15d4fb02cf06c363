package io.github.redlock.engine.waiting;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redlock.engine.quorum.QuorumCall;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition's place in its key's line, and its phases there: {@link #QUEUED} behind
 * the head, the head {@link #ATTEMPTING} or {@link #SLEEPING}, and {@link #GONE}. Its
 * fields are guarded by its line's monitor.
 * <p>
 * <b>Invariant:</b> only the head attempts or sleeps; the others are queued with only
 * their deadline timer. A sleeping head has a timer or waits for a wake-up; an attempting
 * head has one attempt on its way, whose end calls {@link #retry}, {@link #leave} or
 * {@link #leaveHolding}.
 *
 * @author redlock contributors
 */
final class Place implements Waiting.Waiter, Runnable {

	/** Not the head: waits its turn, with only its deadline scheduled. */
	static final int QUEUED = 0;

	/** The head, with an attempt on its way. */
	static final int ATTEMPTING = 1;

	/** The head, waiting for a wake-up or its next poll. */
	static final int SLEEPING = 2;

	/** Out of the line. */
	static final int GONE = 3;

	/**
	 * The longest a head waits before trying again after an attempt that failed while
	 * other nodes' hints of the same release came in (jittered from zero): long enough
	 * for those nodes' deletions, short against any retry delay.
	 */
	static final long ECHO_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private final Waiting waiting;

	final Line line;

	private final Waiting.Entrant entrant;

	final long deadline;

	/** Guarded by the line's monitor. */
	int phase;

	/** Woken while attempting: try again as soon as that attempt failed. */
	boolean woken;

	/**
	 * Another node's hint of the release that woke it came while attempting: try again
	 * soon if that attempt failed.
	 */
	private boolean echoed;

	/** Set by {@link Waiting#enter}: the first attempt is the caller's to send. */
	boolean startsNow;

	private @Nullable ScheduledFuture<?> timer;

	Place(Waiting waiting, Line line, Waiting.Entrant entrant, long deadline) {
		this.waiting = waiting;
		this.line = line;
		this.entrant = entrant;
		this.deadline = deadline;
	}

	/**
	 * Runs its entrant's attempt, told this place: the place is the task that a hand-off
	 * runs, so that handing over allocates nothing.
	 */
	@Override
	public void run() {
		this.entrant.attempt(this);
	}

	@Override
	public boolean startsNow() {
		return this.startsNow;
	}

	@Override
	public boolean retry(long delayNanos) {
		synchronized (this.line) {
			if (this.phase != ATTEMPTING) {
				return true;
			}
			if (!this.woken) {
				this.phase = SLEEPING;
				this.line.updateHints();
				long delay = delayNanos;
				if (this.echoed) {
					this.echoed = false;
					delay = Math.min(delay, ThreadLocalRandom.current().nextLong(ECHO_DELAY_NANOS + 1));
				}
				return schedule(Math.min(delay, this.deadline - this.waiting.clock.nanoTime()));
			}
			this.woken = false;
		}
		Trampoline.run(this);
		return true;
	}

	@Override
	public String @Nullable [] queueArgs() {
		synchronized (this.line) {
			long now = this.waiting.clock.nanoTime();
			long longest = this.line.longestWait(now);
			if (this.phase != ATTEMPTING || longest <= 0) {
				return null;
			}
			return this.line.turn.queue(now, longest);
		}
	}

	@Override
	public boolean leave() {
		Place next;
		boolean unqueue;
		synchronized (this.line) {
			if (this.phase == GONE) {
				return false;
			}
			boolean wasHead = depart();
			unqueue = this.line.waiters.isEmpty() && this.line.holders == 0 && this.line.turn.emptied();
			next = wasHead ? nextHead() : null;
			this.line.retireIfEmpty();
		}
		if (next != null) {
			Trampoline.run(next);
		}
		return unqueue;
	}

	@Override
	public LineHold leaveHolding() {
		synchronized (this.line) {
			if (this.phase != GONE) {
				boolean wasHead = depart();
				LineHold hold = this.line.hold(this.line.turn.acquired());
				if (wasHead) {
					nextHead(); // sleeps behind this lease
				}
				this.line.retireIfEmpty();
				return hold;
			}
		}
		// gone already (given up), and yet a lease came: counted all the same, since its
		// end will be told
		return this.waiting.holding(this.line.key);
	}

	/**
	 * Takes this place out of its line. Called holding the line's monitor.
	 * @return whether it was the head
	 */
	private boolean depart() {
		boolean wasHead = this.line.waiters.peekFirst() == this;
		this.line.waiters.remove(this);
		this.phase = GONE;
		cancelTimer();
		return wasHead;
	}

	/**
	 * Makes the next waiter the head once the head left: it attempts unless a lease of
	 * this registry holds the key, else it sleeps until that lease ends or its deadline.
	 * Called holding the line's monitor.
	 * @return the new head to run once the monitor is let go, or {@code null}
	 */
	private @Nullable Place nextHead() {
		Place next = this.line.waiters.peekFirst();
		if (next == null) {
			return null;
		}
		next.cancelTimer();
		if (this.line.holders == 0) {
			next.phase = ATTEMPTING;
			return next;
		}
		next.phase = SLEEPING;
		// woken when that lease ends
		next.schedule(next.deadline - this.waiting.clock.nanoTime());
		return null;
	}

	/**
	 * An attempt sent at once, rather than after that node's answer, reaches a node that
	 * has not yet been sent the release and is refused by the released value there: that
	 * node's fencing counter falls behind the others', and a later acquisition needs a
	 * second round.
	 */
	@Override
	public @Nullable QuorumCall released() {
		return this.line.released; // volatile: read on every attempt, without the
									// lock
	}

	/**
	 * A queued head's turn comes as a hint naming its line, so its poll is only a
	 * fallback, and polling at every retry delay would have each waiting process's
	 * attempts refused many times a second.
	 */
	@Override
	public int pollBackoff() {
		synchronized (this.line) {
			return this.line.turn.pollBackoff();
		}
	}

	/**
	 * Hears another node's hint of the release it was woken for: while it attempts, marks
	 * that a failure of this attempt is worth a retry soon; while it sleeps after such a
	 * failure, tries again within {@link #ECHO_DELAY_NANOS}. A node that refused the
	 * attempt because its deletion of the release came after it publishes its hint after
	 * that refusal, and the hint and the refusal come on different connections, so the
	 * hint often comes once the attempt has failed.
	 */
	void echo() {
		// guarded by the line's monitor, held by hint()
		if (this.phase == ATTEMPTING) {
			this.echoed = true;
		}
		else if (this.phase == SLEEPING) {
			long soon = Math.min(ThreadLocalRandom.current().nextLong(ECHO_DELAY_NANOS + 1),
					this.deadline - this.waiting.clock.nanoTime());
			ScheduledFuture<?> scheduled = this.timer;
			if (scheduled == null || scheduled.getDelay(TimeUnit.NANOSECONDS) > soon) {
				cancelTimer();
				schedule(soon);
			}
		}
	}

	void wake() {
		synchronized (this.line) {
			if (this.phase == ATTEMPTING) {
				this.woken = true;
				return;
			}
			if (this.phase != SLEEPING) {
				return;
			}
			cancelTimer();
			this.phase = ATTEMPTING;
			this.line.updateHints();
		}
		Trampoline.run(this);
	}

	private void fire() {
		boolean attemptNow;
		synchronized (this.line) {
			this.timer = null;
			if (this.phase == QUEUED) {
				attemptNow = false; // its wait time is spent in line
			}
			else if (this.phase == SLEEPING && this.line.holders > 0) {
				// a lease of this registry holds the key: an attempt could only be
				// refused, and the lease's end wakes the head (holderGone)
				long left = this.deadline - this.waiting.clock.nanoTime();
				if (left > 0 && schedule(left)) {
					return;
				}
				attemptNow = false; // its wait time is spent behind that lease
			}
			else if (this.phase == SLEEPING) {
				this.line.hints().shortfall();
				this.phase = ATTEMPTING;
				this.line.updateHints();
				attemptNow = true;
			}
			else {
				return;
			}
		}
		Trampoline.run(attemptNow ? this : () -> this.entrant.timedOut(this));
	}

	/** Called holding the line's monitor. */
	boolean schedule(long delayNanos) {
		try {
			this.timer = this.waiting.scheduler.schedule(this::fire, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (RejectedExecutionException ex) {
			return false;
		}
	}

	void cancelTimer() {
		ScheduledFuture<?> scheduled = this.timer;
		if (scheduled != null) {
			scheduled.cancel(false);
			this.timer = null;
		}
	}

	@Override
	public int ahead() {
		synchronized (this.line) {
			int ahead = 0;
			for (Place waiter : this.line.waiters) {
				if (waiter == this) {
					return ahead;
				}
				ahead++;
			}
			return ahead;
		}
	}

}
