package io.github.redlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.node.Script;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What one node spends running an uncontended cycle's commands, part by part: the node
 * CPU ({@code INFO cpu}) per acquire+release cycle on a new key, with the commands sent
 * in pipelined batches so that the node's system calls (a read and a write per wake-up,
 * the same for every contender at one thread) weigh next to nothing and what remains is
 * the commands' own work. The bare quorum's cycle ({@code SET NX PX} and a
 * compare-and-delete script), this registry's (its acquire and release scripts, exactly
 * as {@link Script} sends them, with the arguments a registry sends, guard off and on),
 * and probes between the two that show where the difference goes: a script that only sets
 * the lock (what running any script costs), one that also writes a counter that exists,
 * and one that writes a new counter (a key kept a day, as the fencing counter is).
 * Variants run in turn in each repetition; the table prints the median. For scale,
 * {@link CycleCostBenchmark} prints a whole 1-thread cycle's node CPU, system calls
 * included. It asserts nothing.
 * <p>
 * Run with {@code ./mvnw -B -ntp -pl redlock-benchmarks -am verify -DskipTests
 * -Dbenchmarks -Dbench.main=ScriptCostBenchmark}; {@code bench.reps} (default 3, read
 * here as at least 5) changes the repetitions.
 */
public final class ScriptCostBenchmark {

	/** Cycles per variant and repetition. */
	private static final int CYCLES = 100_000;

	private static final int BATCH = 200;

	private static final String TTL = "10000";

	private static final String RETENTION = "86400000";

	private static final String SET_ONLY = "redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) return 1";

	private static final String SET_AND_COUNTER = "redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) "
			+ "redis.call('set', KEYS[2], ARGV[4], 'PX', ARGV[3], 'GET') return 1";

	private ScriptCostBenchmark() {
	}

	/**
	 * Runs the measurement and prints it.
	 * @param args none
	 * @throws Exception if a run failed
	 */
	public static void main(String[] args) throws Exception {
		int reps = Math.max(5, BenchSettings.fromSystemProperties().reps());
		try (RedisFleet fleet = RedisFleet.start(1)) {
			RedisNode node = fleet.nodes().get(0);
			RedisClient client = RedisClient.create(RedisURI.create(fleet.uris().get(0)));
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				Variants variants = new Variants(connection.sync());
				Map<String, double[]> perCycle = new LinkedHashMap<>();
				variants.names().forEach((name) -> perCycle.put(name, new double[reps]));
				for (int rep = 0; rep < reps; rep++) {
					for (String name : variants.names()) {
						perCycle.get(name)[rep] = pipelined(node, connection, variants, name, rep);
					}
					System.out.printf(Locale.ROOT, "rep %d of %d done%n", rep + 1, reps);
				}
				print(perCycle, serverVersion(node));
			}
			finally {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		}
	}

	private static double pipelined(RedisNode node, StatefulRedisConnection<String, String> connection,
			Variants variants, String name, int rep) throws Exception {
		RedisAsyncCommands<String, String> async = connection.async();
		List<RedisFuture<?>> replies = new ArrayList<>(BATCH * 2);
		double before = CycleCost.nodeCpuMicros(node);
		connection.setAutoFlushCommands(false);
		try {
			for (int i = 0; i < CYCLES; i++) {
				variants.cycle(async, name, "r" + rep + ":" + name + ":" + i, replies);
				if (replies.size() >= BATCH) {
					await(connection, replies);
				}
			}
			await(connection, replies);
		}
		finally {
			connection.setAutoFlushCommands(true);
		}
		double spent = CycleCost.nodeCpuMicros(node) - before;
		variants.reset();
		return spent / CYCLES;
	}

	private static void await(StatefulRedisConnection<String, String> connection, List<RedisFuture<?>> replies)
			throws Exception {
		connection.flushCommands();
		for (RedisFuture<?> reply : replies) {
			reply.get(30, TimeUnit.SECONDS);
		}
		replies.clear();
	}

	private static String serverVersion(RedisNode node) {
		return node.call("INFO", "server")
			.toString()
			.lines()
			.filter((line) -> line.startsWith("redis_version:"))
			.map((line) -> "redis " + line.substring(line.indexOf(':') + 1).trim())
			.findFirst()
			.orElse("redis ?");
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[sorted.length / 2];
	}

	private static void print(Map<String, double[]> perCycle, String version) {
		double bare = median(perCycle.get(Variants.BARE));
		System.out.println();
		System.out.printf(Locale.ROOT,
				"What one node (%s) spends per acquire+release cycle on a new key, its commands"
						+ " pipelined (%,d cycles per variant and repetition, median of %d):%n",
				version, CYCLES, perCycle.get(Variants.BARE).length);
		System.out.println();
		System.out.println("| cycle | node CPU per cycle (µs) | over the bare cycle (µs) |");
		System.out.println("|---|---:|---:|");
		perCycle.forEach((name, values) -> System.out.printf(Locale.ROOT, "| %s | %.2f | %+.2f |%n", name,
				median(values), median(values) - bare));
	}

	/**
	 * The cycles measured, by name, and what each sends.
	 */
	private static final class Variants {

		static final String BARE = "bare quorum: SET NX PX, compare-and-delete script";

		static final String SCRIPT = "a script that only sets the lock, compare-and-delete";

		static final String COUNTER = "the same script, also writing a counter that exists, compare-and-delete";

		static final String NEW_COUNTER = "the same script, writing a new counter kept a day, compare-and-delete";

		static final String OFF = "this registry, guard off: acquire and release scripts";

		static final String ON = "this registry, guard on: acquire and release scripts";

		private static final String MARKER_KEY = "redlock:node";

		private final RedisCommands<String, String> sync;

		final String value = "QCFQUHGIi39O9twnUw-bR_Zb6I8:benchmark-host:4242:main";

		private final String secret = this.value.substring(0, this.value.indexOf(':'));

		private final String marker = "YL4gdvzJ059c70SQ:1795795831051";

		final String compareAndDelete;

		private final String setOnly;

		private final String setAndCounter;

		private final String acquire;

		private final String release;

		private long start = System.currentTimeMillis() * 1000;

		Variants(RedisCommands<String, String> sync) {
			this.sync = sync;
			this.compareAndDelete = sync.scriptLoad(BareQuorumContender.COMPARE_AND_DELETE);
			this.setOnly = sync.scriptLoad(SET_ONLY);
			this.setAndCounter = sync.scriptLoad(SET_AND_COUNTER);
			this.acquire = sync.scriptLoad(Script.ACQUIRE.text());
			this.release = sync.scriptLoad(Script.RELEASE.text());
			reset();
		}

		List<String> names() {
			return List.of(BARE, SCRIPT, COUNTER, NEW_COUNTER, OFF, ON);
		}

		/**
		 * Empties the node between variants, so that each starts from the same keyspace.
		 */
		void reset() {
			this.sync.flushall();
			this.sync.set(MARKER_KEY, this.marker);
			this.sync.set("redlock:fence:existing", "1");
		}

		void cycle(RedisAsyncCommands<String, String> async, String name, String tag, List<RedisFuture<?>> replies) {
			String lock = "redlock:lock:{" + tag + "}";
			String counter = "redlock:fence:{" + tag + "}";
			String start = Long.toString(++this.start);
			switch (name) {
				case BARE -> replies.add(async.set(lock, this.value, SetArgs.Builder.nx().px(Long.parseLong(TTL))));
				case SCRIPT -> replies.add(async.evalsha(this.setOnly, ScriptOutputType.INTEGER,
						new String[] { lock, counter }, this.value, TTL, RETENTION, start));
				case COUNTER -> replies.add(async.evalsha(this.setAndCounter, ScriptOutputType.INTEGER,
						new String[] { lock, "redlock:fence:existing" }, this.value, TTL, RETENTION, start));
				case NEW_COUNTER -> replies.add(async.evalsha(this.setAndCounter, ScriptOutputType.INTEGER,
						new String[] { lock, counter }, this.value, TTL, RETENTION, start));
				case OFF -> replies.add(async.evalsha(this.acquire, ScriptOutputType.INTEGER,
						new String[] { lock, counter }, this.value, TTL, RETENTION, start));
				case ON -> replies.add(async.evalsha(this.acquire, ScriptOutputType.INTEGER,
						new String[] { lock, counter, MARKER_KEY }, this.value, TTL, RETENTION, start, this.marker,
						Long.toString(this.start - 60_000_000)));
				default -> throw new IllegalArgumentException(name);
			}
			if (name.equals(OFF) || name.equals(ON)) {
				// the release a registry sends for an uncontended cycle: its line,
				// nothing
				// else (Waiting#releaseArgs)
				replies.add(async.evalsha(this.release, ScriptOutputType.INTEGER,
						new String[] { lock, "redlock:waiters:{" + tag + "}" }, this.secret, start,
						"goclzjcrn5gm,,,,"));
			}
			else {
				replies.add(async.evalsha(this.compareAndDelete, ScriptOutputType.INTEGER, new String[] { lock },
						this.value));
			}
		}

	}

}
