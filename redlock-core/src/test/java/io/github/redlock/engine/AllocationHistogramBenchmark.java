package io.github.redlock.engine;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.management.ObjectName;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A harness, not a test: prints what one acquire+release cycle allocates, class by class,
 * on one thread against 3 local nodes (a new key each cycle, the restart guard off). Run
 * it under Epsilon GC, which collects nothing, so that the heap's class histogram (with
 * unreachable objects) counts every object the cycles made:
 * {@code ./mvnw -pl redlock-core -am verify -Dbenchmarks -Dtest=AllocationHistogramBenchmark -Dsurefire.failIfNoSpecifiedTests=false -Dredlock.test.forks=1 "-Dredlock.test.jvm-args=-XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xmx6g -Xms6g"}.
 * Exact where a sampling profiler is not: two runs differ by a few bytes per cycle, not
 * by hundreds, so a change to the hot path shows as what it adds or removes. The
 * {@code int[]} TLAB fillers and the harness's own parsing are left out of the total.
 */
@Tag("benchmark")
class AllocationHistogramBenchmark {

	private static final int CYCLES = 5000;

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	@Test
	void bytesPerAcquireReleaseCycle() throws Exception {
		// the plain builder, so that the harness runs unchanged on older commits
		try (RedlockRegistry registry = RedlockRegistry.builder()
			.nodes(fleet.uris())
			.restartGuard(false)
			.build()
			.start()) {
			Duration ttl = Duration.ofSeconds(10);
			Duration wait = Duration.ofSeconds(30);
			for (String kind : new String[] { "exclusive", "read", "permit" }) {
				Map<String, long[]> before = null;
				for (int round = 0; round < 3; round++) { // the first two warm up
					before = histogram();
					for (int i = 0; i < CYCLES; i++) {
						String key = "histogram:" + kind + ":" + round + ":" + i;
						Lease lease = switch (kind) {
							case "read" -> registry.acquireRead(key, ttl, wait);
							case "permit" -> registry.semaphore(key, 2).acquire(ttl, wait);
							default -> registry.acquire(key, ttl, wait);
						};
						lease.release();
					}
				}
				print(kind, before, histogram());
			}
		}
	}

	private static void print(String kind, Map<String, long[]> before, Map<String, long[]> after) {
		double total = 0;
		double redlock = 0;
		List<String> lines = new ArrayList<>();
		for (Map.Entry<String, long[]> entry : after.entrySet()) {
			String type = entry.getKey();
			long[] was = before.getOrDefault(type, new long[2]);
			double count = (entry.getValue()[0] - was[0]) / (double) CYCLES;
			double bytes = (entry.getValue()[1] - was[1]) / (double) CYCLES;
			if (type.equals("[I") || type.startsWith("java.util.regex.") || Math.abs(count) < 0.05) {
				continue;
			}
			total += bytes;
			if (type.startsWith("io.github.redlock.")) {
				redlock += bytes;
				lines.add(String.format("  %6.2f x %7.1f bytes  %s", count, bytes, type));
			}
		}
		lines.sort(null);
		System.out.printf("%s: %,.0f bytes per acquire+release cycle, of which redlock classes %,.0f:%n", kind, total,
				redlock);
		lines.forEach(System.out::println);
	}

	/** The heap's class histogram with unreachable objects: class to {count, bytes}. */
	private static Map<String, long[]> histogram() throws Exception {
		String text = (String) ManagementFactory.getPlatformMBeanServer()
			.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
					new Object[] { new String[] { "-all" } }, new String[] { String[].class.getName() });
		Map<String, long[]> classes = new HashMap<>();
		for (String line : text.split("\n")) {
			String[] fields = line.trim().split("\\s+");
			if (fields.length >= 4 && fields[0].endsWith(":")) {
				classes.put(fields[3], new long[] { Long.parseLong(fields[1]), Long.parseLong(fields[2]) });
			}
		}
		return classes;
	}

}
