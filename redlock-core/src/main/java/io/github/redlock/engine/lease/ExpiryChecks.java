package io.github.redlock.engine.lease;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.engine.quorum.MonotonicClock;

/**
 * The expiry checks and renewals of a registry's watched leases on one timer: the
 * scheduler holds one task, due when the earliest of them is, instead of one task per
 * lease (and another per renewal).
 * <p>
 * A lease is added to a queue ordered by when it is next due, and the timer is moved only
 * when the lease is due before the timer. A released lease is taken out of the queue; the
 * timer may then fire for nothing and be set for the earliest lease left, so that a
 * steady stream of short holds costs about one firing per TTL rather than one per
 * acquisition. A firing looks only at the leases due by then: the work is proportional to
 * what is due, not to how many leases are held.
 * <p>
 * <b>Invariants.</b> Every watched lease has exactly one entry in {@link #queued}
 * (forgotten ones none), no later than its watchdog's {@link LeaseWatchdog#nextDue()}
 * except while a firing runs it; an entry may be early (the lease was extended since),
 * and is then put back at the new due time. A timer is pending for the earliest entry, or
 * earlier.
 *
 * @author redlock contributors
 */
public final class ExpiryChecks {

	/** The value of {@link #due} while no timer is pending. */
	private static final long NONE = Long.MIN_VALUE;

	private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final Comparator<Entry> BY_DUE = (a, b) -> (a.due != b.due) ? Long.compare(a.due - b.due, 0)
			: Long.compare(a.sequence, b.sequence);

	private final MonotonicClock clock;

	private final ScheduledExecutorService scheduler;

	/** Each watched lease's entry, or {@code null} while a firing runs it. */
	private final Map<LeaseWatchdog, Entry> watched = new HashMap<>();

	/** The entries by due time. Guarded, with {@link #watched}, by this object. */
	private final TreeSet<Entry> queued = new TreeSet<>(BY_DUE);

	private long sequence;

	/**
	 * When the pending timer fires, on {@link #clock}, or {@link #NONE}. Only ever moved
	 * earlier while a timer is pending; a timer that finds another time here was
	 * superseded by an earlier one, which checks everything it would have.
	 */
	private final AtomicLong due = new AtomicLong(NONE);

	/** How many timers were set: for tests. */
	private final LongAdder timersSet = new LongAdder();

	/** How many times the timer fired and was not superseded: for tests. */
	private final LongAdder firings = new LongAdder();

	/** How many watchdogs the firings looked at: for tests. */
	private final LongAdder examined = new LongAdder();

	ExpiryChecks(MonotonicClock clock, ScheduledExecutorService scheduler) {
		this.clock = clock;
		this.scheduler = scheduler;
	}

	/**
	 * Runs the watchdog's renewals and expiry check when due
	 * ({@link LeaseWatchdog#nextDue()}), until it is {@linkplain #forget forgotten}.
	 */
	void watch(LeaseWatchdog watchdog) {
		long at = watchdog.nextDue();
		synchronized (this) {
			if (!this.watched.containsKey(watchdog)) {
				this.watched.put(watchdog, enqueue(watchdog, at));
			}
		}
		timerBy(at);
	}

	void forget(LeaseWatchdog watchdog) {
		synchronized (this) {
			Entry entry = this.watched.remove(watchdog);
			if (entry != null) {
				this.queued.remove(entry);
			}
		}
	}

	/**
	 * Makes the timer run {@code watchdog} by {@code at} (on the registry's clock): its
	 * lease's validity was lowered, or a renewal was asked for. Nothing if it is not
	 * watched.
	 */
	void checkBy(LeaseWatchdog watchdog, long at) {
		if (requeue(watchdog, at)) {
			timerBy(at);
		}
	}

	/**
	 * Puts the watchdog's entry at {@code at} if it is watched and its entry is later or
	 * taken by a firing.
	 * @return whether the entry moved
	 */
	private synchronized boolean requeue(LeaseWatchdog watchdog, long at) {
		if (!this.watched.containsKey(watchdog)) {
			return false;
		}
		Entry entry = this.watched.get(watchdog);
		if (entry != null) {
			if (entry.due - at <= 0) {
				return false;
			}
			this.queued.remove(entry);
		}
		this.watched.put(watchdog, enqueue(watchdog, at));
		return true;
	}

	/** Called holding this object's monitor. */
	private Entry enqueue(LeaseWatchdog watchdog, long at) {
		Entry entry = new Entry(at, this.sequence++, watchdog);
		this.queued.add(entry);
		return entry;
	}

	/**
	 * Makes the timer fire by {@code at}.
	 */
	private void timerBy(long at) {
		long current = this.due.get();
		while (current == NONE || at - current < 0) {
			if (this.due.compareAndSet(current, at)) {
				schedule(at);
				return;
			}
			current = this.due.get();
		}
	}

	private void schedule(long at) {
		this.timersSet.increment();
		try {
			this.scheduler.schedule(() -> fire(at), Math.max(0, at - this.clock.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the registry is closing and releases every lease
		}
	}

	private void fire(long at) {
		if (!this.due.compareAndSet(at, NONE)) {
			return; // an earlier timer replaced this one
		}
		this.firings.increment();
		long now = this.clock.nanoTime();
		List<LeaseWatchdog> dueNow = new ArrayList<>();
		synchronized (this) {
			while (!this.queued.isEmpty() && this.queued.first().due - now <= 0) {
				Entry entry = this.queued.pollFirst();
				this.watched.replace(entry.watchdog, entry, null); // taken: runs below
				dueNow.add(entry.watchdog);
			}
		}
		for (LeaseWatchdog watchdog : dueNow) {
			this.examined.increment();
			if (watchdog.nextDue() - now <= 0) {
				// renews (which asks for the next renewal once answered), ends the
				// lease, or finds it extended meanwhile
				watchdog.runDue(now);
			}
			// back in the queue at its next due time, unless forgotten meanwhile, or
			// given an earlier entry while it ran; one still due (nothing it runs now
			// leaves it so) is looked at again a millisecond later, not in a loop
			long nextDue = watchdog.nextDue();
			requeue(watchdog, (nextDue - now > 0) ? nextDue : now + RETRY_NANOS);
		}
		long next;
		synchronized (this) {
			next = this.queued.isEmpty() ? NONE : this.queued.first().due;
		}
		if (next != NONE) {
			timerBy(next);
		}
	}

	/**
	 * Returns how many leases are watched: for tests.
	 */
	public synchronized int size() {
		return this.watched.size();
	}

	/**
	 * Returns how many timers were set so far: for tests.
	 */
	public long timersSet() {
		return this.timersSet.sum();
	}

	/**
	 * Returns how many times the timer fired so far: for tests.
	 */
	public long firings() {
		return this.firings.sum();
	}

	/**
	 * Returns how many watchdogs the timer's firings looked at so far: for tests.
	 */
	public long examined() {
		return this.examined.sum();
	}

	/**
	 * One watched lease's place in the queue.
	 */
	private record Entry(long due, long sequence, LeaseWatchdog watchdog) {
	}

}
