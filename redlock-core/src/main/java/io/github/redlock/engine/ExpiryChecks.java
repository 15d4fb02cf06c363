package io.github.redlock.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The expiry checks and renewals of a registry's watched leases on one timer: the
 * scheduler holds one task, due when the earliest of them is, instead of one task per
 * lease (and another per renewal).
 * <p>
 * A task per lease was the head of the scheduler's queue whenever no other lease was
 * held, and a new head wakes the scheduler thread: every uncontended acquisition cost
 * that thread a wake-up and a sleep (issue 15 measured 1.4 to 2 context switches per
 * cycle), and a release a cancel under the queue's lock. Now a lease is added to a set,
 * and the timer is moved only when the lease's validity ends before the timer's. A
 * released lease is only forgotten: the timer may then fire for nothing, find every lease
 * left still valid, and be set for the earliest of them, so that a steady stream of short
 * holds costs about one firing per TTL rather than one per acquisition.
 *
 * @author redlock contributors
 */
final class ExpiryChecks {

	/** The value of {@link #due} while no timer is pending. */
	private static final long NONE = Long.MIN_VALUE;

	private final MonotonicClock clock;

	private final ScheduledExecutorService scheduler;

	private final Set<LeaseWatchdog> watched = ConcurrentHashMap.newKeySet();

	/**
	 * When the pending timer fires, on {@link #clock}, or {@link #NONE}. Only ever moved
	 * earlier while a timer is pending; a timer that finds another time here was
	 * superseded by an earlier one, which checks everything it would have.
	 */
	private final AtomicLong due = new AtomicLong(NONE);

	/** How many timers were set: for tests. */
	private final LongAdder timersSet = new LongAdder();

	ExpiryChecks(MonotonicClock clock, ScheduledExecutorService scheduler) {
		this.clock = clock;
		this.scheduler = scheduler;
	}

	/**
	 * Runs the watchdog's renewals and expiry check when due
	 * ({@link LeaseWatchdog#nextDue()}), until it is {@linkplain #forget forgotten}.
	 */
	void watch(LeaseWatchdog watchdog) {
		// added before the timer is read: a timer firing meanwhile either sees it or was
		// set back to none first, in which case checkBy sets a new one
		this.watched.add(watchdog);
		checkBy(watchdog.nextDue());
	}

	void forget(LeaseWatchdog watchdog) {
		this.watched.remove(watchdog);
	}

	/**
	 * Makes the timer fire by {@code at} (on the registry's clock): a lease's validity
	 * was lowered, or a lease is new.
	 */
	void checkBy(long at) {
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
		long now = this.clock.nanoTime();
		long next = NONE;
		for (LeaseWatchdog watchdog : this.watched) {
			if (watchdog.nextDue() - now <= 0) {
				// renews (which asks for the next renewal once answered), ends the
				// lease, or finds it extended meanwhile
				watchdog.runDue(now);
			}
			long due = watchdog.nextDue();
			if (due - now > 0 && (next == NONE || due - next < 0)) {
				next = due;
			}
		}
		if (next != NONE) {
			checkBy(next);
		}
	}

	/**
	 * Returns how many leases are watched: for tests.
	 */
	int size() {
		return this.watched.size();
	}

	/**
	 * Returns how many timers were set so far: for tests.
	 */
	long timersSet() {
		return this.timersSet.sum();
	}

}
