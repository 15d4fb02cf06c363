package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The comparison's settings, read from {@code bench.*} system properties (Maven
 * {@code -D} options), each with a default. The second JVM gets the ones it needs as the
 * same system properties, so both processes build the same contenders.
 *
 * @param reps measured repetitions
 * @param measure how long each scenario runs for each contender in a repetition
 * @param warmup how long each runs in the discarded warm-up repetition (zero: none)
 * @param costWarmup how long each contender loops acquire+release cycles on 1 thread
 * after the warm-up repetition (and half of it on 16 threads), discarded: so that the
 * cost of a cycle is measured once the JIT compiler has compiled the contender's code,
 * rather than while it does so (with the 1 s warm-up alone, the compiler threads took
 * several times as much of this registry's cycle as of the bare quorum's)
 * @param nodes how many local nodes
 * @param ttl the lease time of every acquisition, and the registry's {@code maxTtl}
 * @param hold how long a holder keeps the key after the other said it waits, in the
 * handoff scenarios
 * @param section how long each hold lasts (busy) in the runs of many threads on one key,
 * so that overlapping holds of a broken lock can show
 * @param bareRetry the bare quorum's retry delay (it waits 1x to 2x that)
 * @param restartGuard whether the registry runs with its restart guard on
 * @param twoJvms whether to run the scenarios across two JVMs
 */
record BenchSettings(int reps, Duration measure, Duration warmup, Duration costWarmup, int nodes, Duration ttl,
		Duration hold, Duration section, Duration bareRetry, boolean restartGuard, boolean twoJvms) {

	static BenchSettings fromSystemProperties() {
		return new BenchSettings(intProperty("bench.reps", 3, 1),
				Duration.ofMillis(Math.round(doubleProperty("bench.seconds", 2, 0.1) * 1000)),
				Duration.ofMillis(Math.round(doubleProperty("bench.warmup-seconds", 1, 0) * 1000)),
				Duration.ofMillis(Math.round(doubleProperty("bench.cost-warmup-seconds", 12, 0) * 1000)),
				intProperty("bench.nodes", 5, 1), Duration.ofMillis(intProperty("bench.ttl-ms", 10_000, 1_000)),
				Duration.ofMillis(intProperty("bench.hold-ms", 5, 0)),
				Duration.ofNanos(1000L * intProperty("bench.section-us", 20, 0)),
				Duration.ofMillis(intProperty("bench.bare-retry-ms", 1, 1)),
				booleanProperty("bench.restart-guard", true), booleanProperty("bench.two-jvms", true));
	}

	/**
	 * Returns the system properties that make a second JVM build the same contenders.
	 */
	List<String> forSecondJvm() {
		return List.of("-Dbench.ttl-ms=" + this.ttl.toMillis(), "-Dbench.bare-retry-ms=" + this.bareRetry.toMillis(),
				"-Dbench.restart-guard=" + this.restartGuard);
	}

	String describe() {
		return String.format(Locale.ROOT,
				"settings: %d node(s), %d rep(s) of %s per scenario and contender, warm-up %s (cycles: %s more),"
						+ " TTL %s,"
						+ " hold in the handoffs %s, each hold on one contended key %d µs, bare quorum retry %s-%s,"
						+ " registry restart guard %s, two-JVM scenarios %s",
				this.nodes, this.reps, this.measure, this.warmup, this.costWarmup, this.ttl, this.hold,
				this.section.toNanos() / 1000, this.bareRetry, this.bareRetry.multipliedBy(2),
				this.restartGuard ? "on (maxTtl = TTL)" : "off", this.twoJvms ? "on" : "off");
	}

	static int intProperty(String name, int defaultValue, int least) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			return defaultValue;
		}
		try {
			int parsed = Integer.parseInt(value.trim());
			if (parsed >= least) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("-D" + name + "=" + value + " is not a whole number of at least " + least
				+ "; leave it out for the default, " + defaultValue);
	}

	static double doubleProperty(String name, double defaultValue, double least) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			return defaultValue;
		}
		try {
			double parsed = Double.parseDouble(value.trim());
			if (parsed >= least) {
				return parsed;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("-D" + name + "=" + value + " is not a number of at least " + least
				+ "; leave it out for the default, " + defaultValue);
	}

	static boolean booleanProperty(String name, boolean defaultValue) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			return defaultValue;
		}
		return switch (value.trim().toLowerCase(Locale.ROOT)) {
			case "true" -> true;
			case "false" -> false;
			default -> throw new IllegalArgumentException("-D" + name + "=" + value
					+ " is neither true nor false; leave it out for the default, " + defaultValue);
		};
	}

}
