package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.github.redlock.embedded.RedisNode;

/**
 * Issue 27's cross-process herd: several JVMs (this one and {@link SecondJvm}s), a few
 * threads in each, loop acquire, a critical section, release on one key. It counts the
 * sections, and the acquire attempts that the first node saw, so that the share of
 * attempts refused ({@code 1 - sections / attempts}) shows how many attempts a release
 * sets off. The registry's attempts on a node are the acquire scripts that ran there:
 * each runs {@code INCR} when it set the lock and {@code PTTL} when it was refused
 * (commands that scripts run count in {@code INFO commandstats}); the bare quorum's are
 * its {@code SET NX PX}. Holds of any two threads must never overlap.
 */
final class HerdScenario {

	private static final long START_DELAY_NANOS = 500_000_000L;

	private final List<SecondJvm> others;

	private final long sectionNanos;

	HerdScenario(List<SecondJvm> others, Duration section) {
		this.others = others;
		this.sectionNanos = section.toNanos();
	}

	/**
	 * Runs the herd for one contender.
	 * @param contender its index in the contender set, the same in every JVM
	 * @param local this JVM's instance
	 * @param registry whether it is this project's registry (which commands count as
	 * attempts)
	 */
	void run(int contender, Contender local, boolean registry, int threads, Duration duration, String key,
			RedisNode counted, Figures.Herd into) throws Exception {
		long attemptsBefore = attempts(counted, registry);
		long startAt = System.nanoTime() + START_DELAY_NANOS;
		long end = startAt + duration.toNanos();
		for (SecondJvm other : this.others) {
			other.link().reset();
			other.send("onekey", contender, key, threads, startAt, end, this.sectionNanos);
		}
		List<long[]> all = new ArrayList<>(
				TwoJvmScenarios.oneKeyHalf(local, key, threads, startAt, end, this.sectionNanos));
		for (SecondJvm other : this.others) {
			other.reply("done", duration.plusNanos(Link.STUCK_NANOS));
			all.addAll(other.link().holds());
		}
		long attempts = attempts(counted, registry) - attemptsBefore;
		all.sort(Comparator.comparingLong((long[] hold) -> hold[1]));
		long overlaps = 0;
		long latestReleasing = 0;
		boolean first = true;
		for (long[] hold : all) {
			// holds are {thread, acquired, releasing, released}, by acquisition; a
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
	}

	private static long attempts(RedisNode node, boolean registry) {
		String stats = node.call("INFO", "commandstats").toString();
		return registry ? calls(stats, "incr") + calls(stats, "pttl") : calls(stats, "set");
	}

	private static long calls(String stats, String command) {
		String prefix = "cmdstat_" + command + ":calls=";
		return stats.lines()
			.filter((line) -> line.startsWith(prefix))
			.mapToLong((line) -> Long.parseLong(line.substring(prefix.length(), line.indexOf(','))))
			.findFirst()
			.orElse(0);
	}

}
