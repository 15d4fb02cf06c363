package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The runs whose contenders sit in two processes: this JVM and the {@link SecondJvm},
 * each with its own instance of the same contender over the same nodes. The two sides
 * agree on a start and an end as {@link System#nanoTime()} readings (comparable across
 * processes on one machine, which {@link SecondJvm#checkClock(int)} checks first) and
 * talk over a {@link Link}; after a run the second JVM sends its holds, and this side
 * derives the figures from both.
 * <p>
 * A hold is {@code {thread, acquired, releasing, released}} as a side records it; merged,
 * it is {@code {acquired, releasing, released, thread, process}}, threads of the second
 * JVM numbered after this one's.
 */
final class TwoJvmScenarios {

	/** Time for the command to reach the second JVM before the run starts. */
	private static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	private final SecondJvm second;

	private final Duration hold;

	private final long sectionNanos;

	TwoJvmScenarios(SecondJvm second, Duration hold, Duration section) {
		this.second = second;
		this.hold = hold;
		this.sectionNanos = section.toNanos();
	}

	/**
	 * One thread in each JVM passes one key back and forth, as
	 * {@link Scenarios#handoff(Contender, Duration, String, Samples)} does in one JVM:
	 * the holder keeps it until the other said it is waiting in acquire, plus the hold
	 * time, then releases. Each sample is from the holder's release returning to the
	 * other process's acquire returning.
	 */
	void handoff(int contender, Contender local, Duration duration, String key, Samples into) throws Exception {
		Link link = this.second.link();
		link.reset();
		long startAt = System.nanoTime() + START_DELAY_NANOS;
		long end = startAt + duration.toNanos();
		this.second.send("handoff", contender, key, startAt, end, this.hold.toNanos());
		List<long[]> mine;
		try {
			mine = handoffHalf(local, link, key, true, startAt, end, this.hold.toNanos());
		}
		catch (Exception | Error ex) {
			link.send("stop");
			throw ex;
		}
		this.second.reply("done", duration.plusNanos(Link.STUCK_NANOS));
		into.addAll(analyse(mine, link.holds(), 1).handoffs());
	}

	/**
	 * {@code threads} threads in each JVM loop acquire, release on one key for the run,
	 * each hold lasting the critical section ({@link Scenarios#occupy}); adds the
	 * acquisitions of all, of each JVM and of each thread, the handoffs from one JVM to
	 * the other, and the holds that overlapped.
	 */
	void oneKey(int contender, Contender local, int threads, Duration duration, String key,
			Figures.TwoJvmContention into) throws Exception {
		Link link = this.second.link();
		link.reset();
		long startAt = System.nanoTime() + START_DELAY_NANOS;
		long end = startAt + duration.toNanos();
		this.second.send("onekey", contender, key, threads, startAt, end, this.sectionNanos);
		List<long[]> mine = oneKeyHalf(local, key, threads, startAt, end, this.sectionNanos);
		this.second.reply("done", duration.plusNanos(Link.STUCK_NANOS));
		into.add(analyse(mine, link.holds(), threads), duration.toNanos());
	}

	/**
	 * One side of {@link #handoff}: the starter takes the key first; each side announces
	 * {@code waiting} before it acquires (but the starter's first time), {@code held}
	 * once it holds, and {@code stop} when it ended the run. At its k-th hold a side
	 * waits for the other's k-th {@code waiting}; after its k-th release, for the other's
	 * k-th {@code held} (the starter) or (k+1)-th (the other).
	 * @return this side's holds, each {thread 0, acquired, releasing, released}
	 */
	static List<long[]> handoffHalf(Contender contender, Link link, String key, boolean starter, long startAt, long end,
			long holdNanos) throws Exception {
		List<long[]> mine = new ArrayList<>();
		parkUntil(startAt);
		if (!starter) {
			link.await(() -> link.held() >= 1 || link.stopped());
		}
		boolean first = true;
		boolean stop = link.stopped();
		long holds = 0;
		while (!stop) {
			if (!(first && starter)) {
				link.send("waiting");
			}
			first = false;
			Contender.Held held = contender.acquire(key);
			long acquired = System.nanoTime();
			holds++;
			link.send("held");
			long waitingFor = holds;
			link.await(() -> link.waiting() >= waitingFor || link.stopped());
			if (!link.stopped()) {
				LockSupport.parkNanos(holdNanos);
			}
			stop = link.stopped() || System.nanoTime() - end > 0;
			long releasing = System.nanoTime();
			held.release();
			long released = System.nanoTime();
			mine.add(new long[] { 0, acquired, releasing, released });
			if (stop) {
				link.send("stop");
				break;
			}
			long heldFor = holds + (starter ? 0 : 1);
			link.await(() -> link.held() >= heldFor || link.stopped());
		}
		return mine;
	}

	/**
	 * One side of {@link #oneKey}: {@code threads} threads from {@code startAt} to
	 * {@code end}.
	 * @return this side's holds that began before the end, each {thread, acquired,
	 * releasing, released, asked}: {@code asked} when its acquire was called, so that
	 * {@code acquired - asked} is how long the acquire took, read on one JVM's clock
	 */
	static List<long[]> oneKeyHalf(Contender contender, String key, int threads, long startAt, long end,
			long sectionNanos) throws Exception {
		List<List<long[]>> holds = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			holds.add(new ArrayList<>());
		}
		Scenarios.runThreads(threads, Duration.ofNanos(Math.max(0, end - System.nanoTime())), (index) -> {
			parkUntil(startAt);
			List<long[]> mine = holds.get(index);
			while (System.nanoTime() - end < 0) {
				long asked = System.nanoTime();
				Contender.Held held = contender.acquire(key);
				long acquired = System.nanoTime();
				long releasing = Scenarios.occupy(acquired, sectionNanos);
				held.release();
				long released = System.nanoTime();
				if (acquired - end < 0) {
					mine.add(new long[] { index, acquired, releasing, released, asked });
				}
			}
		});
		List<long[]> all = new ArrayList<>();
		holds.forEach(all::addAll);
		return all;
	}

	/**
	 * Merges both sides' holds and derives the figures: a succession whose holder is in
	 * the other JVM is a handoff (from the previous holder's release returning to the
	 * next one's acquire returning); a hold that began before a hold of another thread
	 * started to release overlaps it (a broken lock).
	 * @param mine this JVM's holds, each {thread, acquired, releasing, released}
	 * @param theirs the second JVM's, the same way
	 * @param threads threads per JVM
	 */
	static Analysis analyse(List<long[]> mine, List<long[]> theirs, int threads) {
		List<long[]> all = new ArrayList<>();
		for (long[] hold : mine) {
			all.add(new long[] { hold[1], hold[2], hold[3], hold[0], 0 });
		}
		for (long[] hold : theirs) {
			all.add(new long[] { hold[1], hold[2], hold[3], threads + hold[0], 1 });
		}
		all.sort(Comparator.comparingLong((long[] hold) -> hold[0]));
		long[] perThread = new long[2 * threads];
		long[] perJvm = new long[2];
		Samples handoffs = new Samples();
		long sameJvm = 0;
		long overlaps = 0;
		long crossOverlaps = 0;
		// per JVM, the latest start of a release of any hold so far
		long[] latestReleasing = { Long.MIN_VALUE, Long.MIN_VALUE };
		boolean[] released = { false, false };
		for (int i = 0; i < all.size(); i++) {
			long[] current = all.get(i);
			int process = (int) current[4];
			perThread[(int) current[3]]++;
			perJvm[process]++;
			if (i > 0) {
				long[] previous = all.get(i - 1);
				if (previous[4] == current[4]) {
					sameJvm++;
				}
				else {
					handoffs.add(current[0] - previous[2]);
				}
			}
			// a thread's own earlier holds ended before it acquired again, so an earlier
			// release started after this acquisition is another thread's
			if (released[1 - process] && current[0] - latestReleasing[1 - process] < 0) {
				overlaps++;
				crossOverlaps++;
			}
			else if (released[process] && current[0] - latestReleasing[process] < 0) {
				overlaps++;
			}
			if (!released[process] || current[1] - latestReleasing[process] > 0) {
				latestReleasing[process] = current[1];
				released[process] = true;
			}
		}
		return new Analysis(all.size(), perThread, perJvm, handoffs, sameJvm, Math.max(0, all.size() - 1), overlaps,
				crossOverlaps);
	}

	private static void parkUntil(long startAt) {
		long left;
		while ((left = startAt - System.nanoTime()) > 0) {
			LockSupport.parkNanos(left);
		}
	}

	/**
	 * What one run across two JVMs showed.
	 *
	 * @param acquisitions holds that began in the run
	 * @param perThread holds per thread, this JVM's first
	 * @param perJvm holds per JVM, this one first
	 * @param handoffs the successions from one JVM to the other, in nanoseconds
	 * @param sameJvm successions within one JVM
	 * @param successions all successions
	 * @param overlaps holds that began before another thread's hold started to release
	 * @param crossOverlaps those of them that overlapped a hold of the other JVM
	 */
	record Analysis(long acquisitions, long[] perThread, long[] perJvm, Samples handoffs, long sameJvm,
			long successions, long overlaps, long crossOverlaps) {

	}

}
