package io.github.redlock.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import io.github.redlock.embedded.RedisNode;

/**
 * What an acquire+release cycle costs, summed over the repetitions of a cycle scenario:
 * CPU time of this JVM (user and system, from {@code /proc/self/stat}: the whole process,
 * so the other contenders' idle threads count too) and of the nodes (user and system,
 * from {@code INFO cpu}), the commands the nodes processed (those the scripts run count
 * too, from {@code INFO stats}) and the reads they did (each wake-up of a node for a
 * connection reads once, however many commands arrived together), and the bytes this JVM
 * allocated (every thread's, from {@code com.sun.management.ThreadMXBean}: the benchmark
 * threads, which end before the reading, add theirs to {@link #ENDED_THREADS_ALLOCATED}
 * as they end). The nodes and this JVM share the machine's cores, so that what a cycle
 * costs in all is what bounds the cycles a second once the cores are busy.
 */
final class CycleCost {

	/**
	 * What the benchmark threads ({@link Scenarios#runThreads}, named {@code bench-*})
	 * allocated, added by each as it ends: a reading skips the live ones.
	 */
	static final LongAdder ENDED_THREADS_ALLOCATED = new LongAdder();

	/** {@code /proc} reports process times in ticks of 1/100 s on Linux. */
	private static final double MICROS_PER_TICK = 10_000;

	private long cycles;

	private final double[] sums = new double[Reading.FIELDS];

	private boolean jvmMeasured = true;

	/**
	 * Returns a node's CPU time so far, user and system, in µs ({@code INFO cpu}).
	 */
	static double nodeCpuMicros(RedisNode node) {
		String cpu = node.call("INFO", "cpu").toString();
		return (Reading.field(cpu, "used_cpu_user") + Reading.field(cpu, "used_cpu_sys")) * 1e6;
	}

	/**
	 * Runs {@code run}, which adds its cycles to {@code rate}, and adds what they cost.
	 */
	void measure(List<RedisNode> nodes, Figures.Rate rate, ComparisonBenchmark.Run run) throws Exception {
		long before = rate.events();
		Reading start = Reading.take(nodes);
		run.run();
		Reading end = Reading.take(nodes);
		this.cycles += rate.events() - before;
		for (int i = 0; i < Reading.FIELDS; i++) {
			this.sums[i] += end.values[i] - start.values[i];
		}
		// by thread: a compiler thread that ended between the readings is missed, one
		// that started counts from zero
		end.compilerTicks.forEach((task,
				ticks) -> this.sums[7] += (ticks - start.compilerTicks.getOrDefault(task, 0L)) * MICROS_PER_TICK);
		this.jvmMeasured &= start.jvmMeasured && end.jvmMeasured;
	}

	/** JVM user µs per cycle, or NaN. */
	double jvmUser() {
		return this.jvmMeasured ? perCycle(0) : Double.NaN;
	}

	/** JVM system µs per cycle, or NaN. */
	double jvmSystem() {
		return this.jvmMeasured ? perCycle(1) : Double.NaN;
	}

	/** The nodes' user µs per cycle, all nodes together. */
	double nodesUser() {
		return perCycle(2);
	}

	/** The nodes' system µs per cycle, all nodes together. */
	double nodesSystem() {
		return perCycle(3);
	}

	/** The commands the nodes processed per cycle, all nodes together. */
	double nodeCommands() {
		return perCycle(4);
	}

	/** The reads the nodes did per cycle, all nodes together. */
	double nodeReads() {
		return perCycle(5);
	}

	/**
	 * The JIT compiler threads' CPU µs per cycle (user and system: part of
	 * {@link #jvm()}), or NaN.
	 */
	double jvmCompiler() {
		return this.jvmMeasured ? perCycle(7) : Double.NaN;
	}

	/** The bytes this JVM allocated per cycle, or NaN where that cannot be read. */
	double jvmAllocated() {
		return this.jvmMeasured ? perCycle(6) : Double.NaN;
	}

	/** JVM CPU µs per cycle, user and system, or NaN. */
	double jvm() {
		return jvmUser() + jvmSystem();
	}

	/** The nodes' CPU µs per cycle, user and system, all nodes together. */
	double nodes() {
		return nodesUser() + nodesSystem();
	}

	/** CPU µs per cycle, this JVM and the nodes together, or NaN. */
	double total() {
		return jvmUser() + jvmSystem() + nodesUser() + nodesSystem();
	}

	private double perCycle(int field) {
		return (this.cycles > 0) ? this.sums[field] / this.cycles : Double.NaN;
	}

	/**
	 * One reading of the counters.
	 */
	private static final class Reading {

		static final int FIELDS = 8; // the last, the compilers', summed by thread

		final double[] values = new double[FIELDS];

		boolean jvmMeasured;

		/** CPU ticks by thread id of the JIT compiler threads alive at the reading. */
		Map<String, Long> compilerTicks = Map.of();

		static Reading take(List<RedisNode> nodes) {
			Reading reading = new Reading();
			try {
				// the fields after the command name, which may hold spaces: state is
				// the first, utime the 12th and stime the 13th (proc(5))
				String stat = Files.readString(Path.of("/proc/self/stat"));
				String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
				reading.values[0] = Long.parseLong(fields[11]) * MICROS_PER_TICK;
				reading.values[1] = Long.parseLong(fields[12]) * MICROS_PER_TICK;
				reading.values[6] = allocated();
				reading.compilerTicks = compilerTicks();
				reading.jvmMeasured = reading.values[6] >= 0;
			}
			catch (IOException | RuntimeException ex) {
				// not Linux: the JVM's share is not measured
			}
			for (RedisNode node : nodes) {
				String cpu = node.call("INFO", "cpu").toString();
				reading.values[2] += field(cpu, "used_cpu_user") * 1e6;
				reading.values[3] += field(cpu, "used_cpu_sys") * 1e6;
				String stats = node.call("INFO", "stats").toString();
				reading.values[4] += field(stats, "total_commands_processed");
				reading.values[5] += field(stats, "total_reads_processed");
			}
			return reading;
		}

		/**
		 * Returns the bytes allocated so far by the threads alive now, but for the
		 * benchmark threads, plus those the benchmark threads that ended allocated; or
		 * {@code -1} if the JVM cannot tell.
		 */
		private static double allocated() {
			if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
					|| !threads.isThreadAllocatedMemorySupported() || !threads.isThreadAllocatedMemoryEnabled()) {
				return -1;
			}
			long[] ids = threads.getAllThreadIds();
			ThreadInfo[] infos = threads.getThreadInfo(ids, 0);
			long[] bytes = threads.getThreadAllocatedBytes(ids);
			double sum = ENDED_THREADS_ALLOCATED.sum();
			for (int i = 0; i < ids.length; i++) {
				if (infos[i] != null && bytes[i] > 0 && !infos[i].getThreadName().startsWith("bench-")) {
					sum += bytes[i];
				}
			}
			return sum;
		}

		/**
		 * Returns the CPU ticks (user and system) of this JVM's JIT compiler threads
		 * ({@code C1 CompilerThread}, {@code C2 CompilerThread}: {@code /proc} truncates
		 * their names) alive now, by thread id. They come and go as the JVM needs them.
		 */
		private static Map<String, Long> compilerTicks() throws IOException {
			Map<String, Long> ticks = new HashMap<>();
			try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
				for (Path task : tasks) {
					String stat;
					try {
						stat = Files.readString(task.resolve("stat"));
					}
					catch (IOException ex) {
						continue; // the thread ended
					}
					String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
					if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
						String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
						ticks.put(task.getFileName().toString(),
								Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
					}
				}
			}
			return ticks;
		}

		private static double field(String info, String name) {
			return info.lines()
				.filter((line) -> line.startsWith(name + ":"))
				.mapToDouble((line) -> Double.parseDouble(line.substring(name.length() + 1).trim()))
				.findFirst()
				.orElse(Double.NaN);
		}

	}

}
