package io.github.redlock.benchmarks;

import java.util.Arrays;

/**
 * What one contender measured, summed over the repetitions.
 */
final class Figures {

	final Rate oneThread = new Rate();

	final Rate sixteenThreads = new Rate();

	final CycleCost oneThreadCost = new CycleCost();

	final CycleCost sixteenThreadsCost = new CycleCost();

	final Contention oneKey = new Contention();

	final Samples handoff = new Samples();

	final Samples twoJvmHandoff = new Samples();

	final TwoJvmContention twoJvmOneKey = new TwoJvmContention();

	final Herd herd = new Herd();

	/**
	 * The cross-process herd ({@link HerdScenario}): sections, the attempts the first
	 * node saw, granted and refused there, and overlapping holds.
	 */
	static final class Herd {

		private long sections;

		private long granted;

		private long refused;

		private long overlaps;

		private long nanos;

		/** How long each acquire took, from the call to the grant, in every JVM. */
		final Samples latency = new Samples();

		void add(long sections, NodeAttempts.Count attempts, long overlaps, long nanos) {
			this.sections += sections;
			this.granted += attempts.granted();
			this.refused += attempts.refused();
			this.overlaps += overlaps;
			this.nanos += nanos;
		}

		double sectionsPerSecond() {
			return (this.nanos > 0) ? this.sections * 1e9 / this.nanos : Double.NaN;
		}

		/** The share of the first node's attempts that it refused. */
		double refusedShare() {
			return (attempts() > 0) ? this.refused / (double) attempts() : Double.NaN;
		}

		long sections() {
			return this.sections;
		}

		long attempts() {
			return this.granted + this.refused;
		}

		long refused() {
			return this.refused;
		}

		long overlaps() {
			return this.overlaps;
		}

	}

	/**
	 * Events over time.
	 */
	static final class Rate {

		private long events;

		private long nanos;

		void add(long events, long nanos) {
			this.events += events;
			this.nanos += nanos;
		}

		double perSecond() {
			return (this.nanos != 0) ? this.events * 1e9 / this.nanos : 0;
		}

		long events() {
			return this.events;
		}

	}

	/**
	 * Threads contending for one key.
	 */
	static final class Contention {

		final Rate acquisitions = new Rate();

		final Samples handoffs = new Samples();

		private final PerThread perThread = new PerThread();

		private long self;

		private long successions;

		private long overlaps;

		void add(long acquisitions, long nanos, long[] perThread, Samples handoffs, long self, long successions,
				long overlaps) {
			this.acquisitions.add(acquisitions, nanos);
			this.perThread.add(perThread);
			this.handoffs.addAll(handoffs);
			this.self += self;
			this.successions += successions;
			this.overlaps += overlaps;
		}

		long[] perThread() {
			return this.perThread.counts();
		}

		/**
		 * Most acquisitions by one thread over the fewest; infinite when one had none.
		 */
		double fairness() {
			return this.perThread.fairness();
		}

		/** Share of holds taken by the thread that held just before. */
		double selfShare() {
			return (this.successions != 0) ? (double) this.self / this.successions : 0;
		}

		long overlaps() {
			return this.overlaps;
		}

	}

	/**
	 * Threads of two JVMs contending for one key.
	 */
	static final class TwoJvmContention {

		final Rate acquisitions = new Rate();

		final Rate[] perJvm = { new Rate(), new Rate() };

		final Samples handoffs = new Samples();

		private final PerThread perThread = new PerThread();

		private long sameJvm;

		private long successions;

		private long overlaps;

		private long crossOverlaps;

		void add(TwoJvmScenarios.Analysis run, long nanos) {
			this.acquisitions.add(run.acquisitions(), nanos);
			for (int i = 0; i < this.perJvm.length; i++) {
				this.perJvm[i].add(run.perJvm()[i], nanos);
			}
			this.perThread.add(run.perThread());
			this.handoffs.addAll(run.handoffs());
			this.sameJvm += run.sameJvm();
			this.successions += run.successions();
			this.overlaps += run.overlaps();
			this.crossOverlaps += run.crossOverlaps();
		}

		long[] perThread() {
			return this.perThread.counts();
		}

		/**
		 * Most acquisitions by one thread over the fewest, over the threads of both JVMs;
		 * infinite when one had none.
		 */
		double fairness() {
			return this.perThread.fairness();
		}

		/** Share of holds taken in the JVM that held just before. */
		double sameJvmShare() {
			return (this.successions != 0) ? (double) this.sameJvm / this.successions : 0;
		}

		long overlaps() {
			return this.overlaps;
		}

		long crossOverlaps() {
			return this.crossOverlaps;
		}

	}

	/**
	 * Acquisitions per thread, summed over the repetitions by thread number.
	 */
	static final class PerThread {

		private long[] counts = new long[0];

		void add(long[] perThread) {
			if (this.counts.length < perThread.length) {
				this.counts = Arrays.copyOf(this.counts, perThread.length);
			}
			for (int i = 0; i < perThread.length; i++) {
				this.counts[i] += perThread[i];
			}
		}

		long[] counts() {
			return this.counts.clone();
		}

		/**
		 * Most acquisitions by one thread over the fewest; infinite when one had none.
		 */
		double fairness() {
			long max = Arrays.stream(this.counts).max().orElse(0);
			long min = Arrays.stream(this.counts).min().orElse(0);
			return (min != 0) ? (double) max / min : Double.POSITIVE_INFINITY;
		}

	}

}
