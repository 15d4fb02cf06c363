package io.github.redlock.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark JVM's handle on the second JVM: starts it ({@link SecondJvmMain}, with
 * the same {@code java} binary, class path, heap options and contender settings), reads
 * its messages on a thread of its own, and ends it on {@link #close()}, or from a
 * shutdown hook when this JVM is stopped. The second JVM ends itself when this one is
 * gone (its input ends, or this process exits), so no run leaves a JVM behind.
 */
final class SecondJvm implements AutoCloseable {

	private static final String[] ENDED = { "ended" };

	private final Process process;

	private final Link link;

	private final BlockingQueue<String[]> replies = new LinkedBlockingQueue<>();

	private final Thread hook;

	private SecondJvm(Process process) {
		this.process = process;
		this.link = new Link(process.getInputStream(), process.getOutputStream());
		this.hook = new Thread(process::destroyForcibly, "second-jvm-cleanup");
		Runtime.getRuntime().addShutdownHook(this.hook);
		Thread reader = new Thread(this::read, "second-jvm-reader");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts the second JVM over the given nodes; it connects and waits until its
	 * registry counts every node before it says {@code ready} (see
	 * {@link #reply(String, Duration)}).
	 */
	static SecondJvm start(BenchSettings settings, List<String> uris) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		ManagementFactory.getRuntimeMXBean()
			.getInputArguments()
			.stream()
			.filter((argument) -> argument.startsWith("-Xm") || argument.startsWith("-XX:"))
			.forEach(command::add);
		command.add("-Dbench.process=second-jvm");
		command.addAll(settings.forSecondJvm());
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(SecondJvmMain.class.getName());
		command.add(Long.toString(ProcessHandle.current().pid()));
		command.addAll(uris);
		Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
		return new SecondJvm(process);
	}

	private void read() {
		try {
			String[] message;
			while ((message = this.link.read()) != null) {
				this.replies.add(message);
			}
		}
		catch (IOException | RuntimeException ex) {
			// ended below
		}
		this.replies.add(ENDED);
	}

	Link link() {
		return this.link;
	}

	long pid() {
		return this.process.pid();
	}

	void send(Object... words) {
		this.link.send(words);
	}

	/**
	 * Waits for the next reply, which must have the given verb.
	 * @return its words after the verb
	 * @throws IllegalStateException when the second JVM failed, ended, answered something
	 * else or nothing in time
	 */
	String[] reply(String verb, Duration timeout) throws InterruptedException {
		String[] message = this.replies.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
		if (message == null) {
			throw new IllegalStateException(
					"The second JVM sent no '" + verb + "' within " + timeout.toSeconds() + "s");
		}
		if (message == ENDED) {
			this.replies.add(ENDED);
			String exit = this.process.isAlive() ? "still running" : "exit code " + this.process.exitValue();
			throw new IllegalStateException("The second JVM ended its output (" + exit + "); see its log lines above");
		}
		if ("failed".equals(message[0])) {
			throw new IllegalStateException("The second JVM failed: " + ((message.length > 1) ? message[1] : ""));
		}
		if (!verb.equals(message[0])) {
			throw new IllegalStateException(
					"The second JVM sent '" + String.join(" ", message) + "' where '" + verb + "' was expected");
		}
		return (message.length > 1) ? message[1].split(" ") : new String[0];
	}

	/**
	 * Checks that {@link System#nanoTime()} readings of the two JVMs are comparable (on
	 * Linux both read {@code CLOCK_MONOTONIC}): asks for the second JVM's reading
	 * {@code rounds} times, each between two readings of this JVM.
	 */
	ClockCheck checkClock(int rounds) throws InterruptedException {
		long[] widths = new long[rounds];
		int inside = 0;
		long worstMiss = 0;
		for (int i = 0; i < rounds; i++) {
			long before = System.nanoTime();
			send("clock");
			long theirs = Long.parseLong(reply("clock", Duration.ofSeconds(30))[0]);
			long after = System.nanoTime();
			widths[i] = after - before;
			if (theirs - before >= 0 && after - theirs >= 0) {
				inside++;
			}
			else {
				worstMiss = Math.max(worstMiss, Math.max(before - theirs, theirs - after));
			}
		}
		Arrays.sort(widths);
		return new ClockCheck(rounds, inside, widths[0], widths[rounds / 2], worstMiss);
	}

	/**
	 * Asks the second JVM to quit, and ends it if it does not within 15 s, forcibly if it
	 * must.
	 */
	@Override
	public void close() throws InterruptedException {
		try {
			if (this.process.isAlive()) {
				try {
					send("quit");
				}
				catch (RuntimeException ex) {
					// it no longer reads: ended below
				}
				this.process.waitFor(15, TimeUnit.SECONDS);
			}
		}
		finally {
			if (this.process.isAlive()) {
				this.process.destroy();
				if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			try {
				Runtime.getRuntime().removeShutdownHook(this.hook);
			}
			catch (IllegalStateException ex) {
				// shutting down already: the hook runs, harmlessly
			}
		}
	}

	/**
	 * How the two JVMs' {@link System#nanoTime()} compare.
	 *
	 * @param rounds how many readings were asked for
	 * @param inside how many fell between this JVM's readings before and after
	 * @param narrowestNanos the narrowest bracket
	 * @param medianNanos the median bracket
	 * @param worstMissNanos how far the worst reading outside its bracket fell outside
	 */
	record ClockCheck(int rounds, int inside, long narrowestNanos, long medianNanos, long worstMissNanos) {

		boolean comparable() {
			return this.inside == this.rounds;
		}

	}

}
