package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Issue 27's cross-process herd: several JVMs (this one and {@link SecondJvm}s), a few
 * threads in each, loop acquire, a critical section, release on one key. It counts the
 * sections, and the acquire attempts that the first node saw, granted and refused there
 * ({@link NodeAttempts}), so that the share refused shows how many attempts a release
 * sets off. Holds of any two threads must never overlap.
 */
final class HerdScenario {

	private static final long START_DELAY_NANOS = 500_000_000L;

	private final List<SecondJvm> others;

	private final long sectionNanos;

	private final NodeAttempts counted;

	/**
	 * Creates the herd of this JVM and {@code others}.
	 * @param counted the counter of the first node's attempts, which the caller closes
	 */
	HerdScenario(List<SecondJvm> others, Duration section, NodeAttempts counted) {
		this.others = others;
		this.sectionNanos = section.toNanos();
		this.counted = counted;
	}

	/**
	 * Runs the herd for one contender.
	 * @param contender its index in the contender set, the same in every JVM
	 * @param local this JVM's instance: this project's registry or the bare quorum
	 */
	void run(int contender, Contender local, int threads, Duration duration, String key, Figures.Herd into)
			throws Exception {
		List<long[]> all = new ArrayList<>();
		NodeAttempts.Count attempts = (local instanceof RegistryContender registry)
				? this.counted.count(registry.lockKey(key), true,
						() -> runAll(contender, local, threads, duration, key, all))
				: this.counted.count(key, false, () -> runAll(contender, local, threads, duration, key, all));
		all.sort(Comparator.comparingLong((long[] hold) -> hold[1]));
		long overlaps = 0;
		long latestReleasing = 0;
		boolean first = true;
		for (long[] hold : all) {
			// holds are {thread, acquired, releasing, released, asked}, by acquisition; a
			// thread's own earlier holds began to release before it acquired again. (The
			// first run of this compared the first hold with Long.MIN_VALUE, which
			// overflowed and counted one overlap per run that was none.)
			if (!first && hold[1] - latestReleasing < 0) {
				overlaps++;
			}
			if (first || hold[2] - latestReleasing > 0) {
				latestReleasing = hold[2];
			}
			first = false;
		}
		into.add(all.size(), attempts, overlaps, duration.toNanos());
		for (long[] hold : all) {
			// both readings from the JVM that held: the JVMs' clocks are not compared
			into.latency.add(hold[1] - hold[4]);
		}
	}

	private void runAll(int contender, Contender local, int threads, Duration duration, String key, List<long[]> into)
			throws Exception {
		long startAt = System.nanoTime() + START_DELAY_NANOS;
		long end = startAt + duration.toNanos();
		for (SecondJvm other : this.others) {
			other.link().reset();
			other.send("onekey", contender, key, threads, startAt, end, this.sectionNanos);
		}
		into.addAll(TwoJvmScenarios.oneKeyHalf(local, key, threads, startAt, end, this.sectionNanos));
		for (SecondJvm other : this.others) {
			other.reply("done", duration.plusNanos(Link.STUCK_NANOS));
			into.addAll(other.link().holds());
		}
	}

}
