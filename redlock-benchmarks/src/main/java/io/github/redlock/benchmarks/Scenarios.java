package io.github.redlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The measured runs. Each takes one contender for a fixed duration and adds what it saw
 * to that contender's {@link Figures}; the caller interleaves contenders and repetitions.
 */
final class Scenarios {

	/** How long any one wait inside a run may take before the run is declared stuck. */
	private static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(60);

	private final Duration hold;

	private final long sectionNanos;

	Scenarios(Duration hold, Duration section) {
		this.hold = hold;
		this.sectionNanos = section.toNanos();
	}

	/**
	 * Acquire+release cycles, each thread on a new key each cycle (as {@code order:<id>}
	 * would be): no contention, so this measures the cost of a cycle.
	 */
	void cycles(Contender contender, int threads, Duration duration, String keyPrefix, Figures.Rate into)
			throws Exception {
		AtomicLong next = new AtomicLong();
		AtomicLong cycles = new AtomicLong();
		long start = System.nanoTime();
		long end = start + duration.toNanos();
		runThreads(threads, duration, (index) -> {
			while (System.nanoTime() - end < 0) {
				contender.acquire(keyPrefix + next.incrementAndGet()).release();
				cycles.incrementAndGet();
			}
		});
		into.add(cycles.get(), duration.toNanos());
	}

	/**
	 * The same cycles, each acquire's latency (the call to its return) added to
	 * {@code acquireLatency}: two clock readings more per cycle, for every contender.
	 */
	void timedCycles(Contender contender, int threads, Duration duration, String keyPrefix, Figures.Rate into,
			Samples acquireLatency) throws Exception {
		AtomicLong next = new AtomicLong();
		AtomicLong cycles = new AtomicLong();
		List<Samples> latencies = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			latencies.add(new Samples());
		}
		long end = System.nanoTime() + duration.toNanos();
		runThreads(threads, duration, (index) -> {
			Samples mine = latencies.get(index);
			while (System.nanoTime() - end < 0) {
				long asked = System.nanoTime();
				Contender.Held held = contender.acquire(keyPrefix + next.incrementAndGet());
				mine.add(System.nanoTime() - asked);
				held.release();
				cycles.incrementAndGet();
			}
		});
		latencies.forEach(acquireLatency::addAll);
		into.add(cycles.get(), duration.toNanos());
	}

	/**
	 * Threads that loop acquire, release on one key, as fast as they can, each hold
	 * lasting the critical section ({@link #occupy}). Records each hold (acquire
	 * returned, release called, release returned) and derives the acquisitions, each
	 * thread's share, the handoffs to another thread (the previous holder's release
	 * returned to the next holder's acquire returned), how often the releasing thread
	 * took the lock again, and overlapping holds (which must be none).
	 */
	void oneKey(Contender contender, int threads, Duration duration, String key, Figures.Contention into)
			throws Exception {
		List<List<long[]>> holds = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			holds.add(new ArrayList<>());
		}
		long start = System.nanoTime();
		long end = start + duration.toNanos();
		runThreads(threads, duration, (index) -> {
			List<long[]> mine = holds.get(index);
			while (System.nanoTime() - end < 0) {
				Contender.Held held = contender.acquire(key);
				long acquired = System.nanoTime();
				long releasing = occupy(acquired, this.sectionNanos);
				held.release();
				long released = System.nanoTime();
				if (acquired - end < 0) {
					mine.add(new long[] { acquired, releasing, released, index });
				}
			}
		});
		List<long[]> all = new ArrayList<>();
		long[] perThread = new long[threads];
		for (int t = 0; t < threads; t++) {
			all.addAll(holds.get(t));
			perThread[t] = holds.get(t).size();
		}
		OneKey run = analyse(all);
		into.add(all.size(), duration.toNanos(), perThread, run.handoffs(), run.self(), Math.max(0, all.size() - 1),
				run.overlaps());
	}

	/**
	 * Derives from the holds of one run on one key, each {@code {acquired, releasing,
	 * released, thread}}, the handoffs to another thread, the successions by the same
	 * thread, and the holds that began before an earlier hold of another thread started
	 * to release (a thread's own holds follow each other, so any earlier release that
	 * started later is another thread's).
	 */
	static OneKey analyse(List<long[]> holds) {
		List<long[]> all = new ArrayList<>(holds);
		all.sort(Comparator.comparingLong((long[] hold) -> hold[0]));
		Samples handoffs = new Samples();
		long self = 0;
		long overlaps = 0;
		long latestReleasing = all.isEmpty() ? 0 : all.get(0)[1];
		for (int i = 1; i < all.size(); i++) {
			long[] previous = all.get(i - 1);
			long[] current = all.get(i);
			if (current[0] - latestReleasing < 0) {
				overlaps++;
			}
			if (current[1] - latestReleasing > 0) {
				latestReleasing = current[1];
			}
			if (current[3] == previous[3]) {
				self++;
			}
			else {
				handoffs.add(current[0] - previous[2]);
			}
		}
		return new OneKey(handoffs, self, overlaps);
	}

	/**
	 * Two threads pass one key back and forth: the holder keeps it until the other is
	 * waiting in acquire (plus the hold time, so that the waiter is settled in its
	 * waiting), then releases; each sample is from the holder's release returning to the
	 * waiter's acquire returning. The releasing thread waits for the other to hold before
	 * it asks again, so it never takes the lock back.
	 */
	void handoff(Contender contender, Duration duration, String key, Samples into) throws Exception {
		AtomicInteger holder = new AtomicInteger(-1);
		AtomicInteger waiting = new AtomicInteger(-1);
		AtomicLong releases = new AtomicLong();
		AtomicLong releasedAt = new AtomicLong();
		Samples samples = new Samples();
		long end = System.nanoTime() + duration.toNanos();
		AtomicReference<Boolean> stop = new AtomicReference<>(false);
		runThreads(2, duration, (index) -> {
			int other = 1 - index;
			boolean first = true;
			if (index == 1) {
				await(() -> holder.get() == 0 || stop.get());
			}
			while (!stop.get()) {
				boolean waited = !(first && index == 0);
				first = false;
				long releasesBefore = releases.get();
				if (waited) {
					waiting.set(index);
				}
				Contender.Held held = contender.acquire(key);
				long acquired = System.nanoTime();
				holder.set(index);
				if (waited) {
					await(() -> releases.get() > releasesBefore);
					synchronized (samples) {
						samples.add(acquired - releasedAt.get());
					}
				}
				await(() -> waiting.get() == other || stop.get());
				if (!stop.get()) {
					LockSupport.parkNanos(this.hold.toNanos());
				}
				if (System.nanoTime() - end > 0) {
					stop.set(true);
				}
				held.release();
				releasedAt.set(System.nanoTime());
				releases.incrementAndGet();
				if (stop.get()) {
					break;
				}
				await(() -> holder.get() == other || stop.get());
			}
		});
		into.addAll(samples);
	}

	/**
	 * Stays in the critical section, busy, until {@code sectionNanos} have passed since
	 * the acquisition: a lock whose holds last no time could be broken without any two
	 * holds overlapping (a run of 8 threads each on its own key counted no overlap so).
	 * @return when the section ended, as {@link System#nanoTime()}: the start of the
	 * release
	 */
	static long occupy(long acquired, long sectionNanos) {
		long now = System.nanoTime();
		while (now - acquired < sectionNanos) {
			Thread.onSpinWait();
			now = System.nanoTime();
		}
		return now;
	}

	private static void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + STUCK_NANOS;
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("A benchmark thread waited 60s for the other: stuck");
			}
			LockSupport.parkNanos(20_000);
		}
	}

	static void runThreads(int threads, Duration duration, Worker worker) throws Exception {
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch finished = new CountDownLatch(threads);
		List<Thread> started = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int index = t;
			Thread thread = new Thread(() -> {
				try {
					worker.run(index);
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
				finally {
					CycleCost.ENDED_THREADS_ALLOCATED.add(allocatedByThisThread());
					finished.countDown();
				}
			}, "bench-" + t);
			thread.start();
			started.add(thread);
		}
		if (!finished.await(duration.toNanos() + STUCK_NANOS, TimeUnit.NANOSECONDS)) {
			started.forEach(Thread::interrupt);
			throw new IllegalStateException("Benchmark threads still running 60s after their end: "
					+ Arrays.toString(started.stream().map(Thread::getName).toArray()));
		}
		if (failure.get() != null) {
			throw new IllegalStateException("A benchmark thread failed", failure.get());
		}
	}

	private static long allocatedByThisThread() {
		return (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
				? Math.max(0, threads.getCurrentThreadAllocatedBytes()) : 0;
	}

	/**
	 * What one run on one key in one JVM showed.
	 *
	 * @param handoffs the successions to another thread, in nanoseconds
	 * @param self the successions by the thread that held before
	 * @param overlaps holds that began before another thread's hold started to release
	 */
	record OneKey(Samples handoffs, long self, long overlaps) {

	}

	@FunctionalInterface
	interface Worker {

		void run(int index) throws Exception;

	}

}
