package io.github.redlock.benchmarks;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One end of the line protocol between the benchmark JVM and the second JVM, over the
 * second JVM's standard input and output (never through the nodes under test). A message
 * is one line of space-separated words, the first its verb.
 * <p>
 * Events of a running two-JVM scenario update this end's view of the other side as they
 * are read: {@code waiting} (the other is about to wait in acquire), {@code held} (it
 * holds), {@code stop} (it stopped, the run is over) and {@code hold <thread> <acquired>
 * <releasing> <released>} (one of its holds, its {@link System#nanoTime()} readings, sent
 * after the run). Other messages are commands and replies, for the caller.
 */
final class Link {

	/** How long any one wait for the other JVM may take before the run is stuck. */
	static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(60);

	private final BufferedReader in;

	private final Writer out;

	private final AtomicLong waiting = new AtomicLong();

	private final AtomicLong held = new AtomicLong();

	private final List<long[]> holds = new ArrayList<>();

	private volatile boolean stopped;

	private volatile boolean closed;

	private volatile String failure;

	Link(InputStream in, OutputStream out) {
		this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
		this.out = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
	}

	/**
	 * Sends one message; words must not contain spaces or line breaks, except in the last
	 * word of a {@code failed} message.
	 */
	void send(Object... words) {
		StringBuilder line = new StringBuilder();
		for (Object word : words) {
			if (!line.isEmpty()) {
				line.append(' ');
			}
			line.append(String.valueOf(word).replace('\n', ' ').replace('\r', ' '));
		}
		synchronized (this.out) {
			try {
				this.out.write(line.append('\n').toString());
				this.out.flush();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("The other JVM no longer reads its messages", ex);
			}
		}
	}

	/**
	 * Reads the next message that is not an event, handling events on the way; returns
	 * {@code null} at the end of the stream (the other JVM is gone).
	 */
	String[] read() throws IOException {
		while (true) {
			String line = this.in.readLine();
			if (line == null) {
				this.closed = true;
				return null;
			}
			String[] words = line.split(" ", 2);
			if (!event(words[0], (words.length > 1) ? words[1] : "")) {
				if ("failed".equals(words[0])) {
					this.failure = (words.length > 1) ? words[1] : "(no message)";
				}
				return words;
			}
		}
	}

	private boolean event(String verb, String rest) {
		switch (verb) {
			case "waiting" -> this.waiting.incrementAndGet();
			case "held" -> this.held.incrementAndGet();
			case "stop" -> this.stopped = true;
			case "hold" -> {
				String[] fields = rest.split(" ");
				long[] hold = new long[fields.length];
				for (int i = 0; i < fields.length; i++) {
					hold[i] = Long.parseLong(fields[i]);
				}
				synchronized (this.holds) {
					this.holds.add(hold);
				}
			}
			default -> {
				return false;
			}
		}
		return true;
	}

	/**
	 * Forgets the events of the previous run. Call before the command that starts a run
	 * is sent (on the benchmark side) or read on (on the second JVM's side).
	 */
	void reset() {
		this.waiting.set(0);
		this.held.set(0);
		this.stopped = false;
		synchronized (this.holds) {
			this.holds.clear();
		}
	}

	/** How many times the other side said it is about to wait in acquire this run. */
	long waiting() {
		return this.waiting.get();
	}

	/** How many times the other side said it holds the key this run. */
	long held() {
		return this.held.get();
	}

	/** Whether the other side stopped the run. */
	boolean stopped() {
		return this.stopped;
	}

	/** The other side's holds this run, each {thread, acquired, releasing, released}. */
	List<long[]> holds() {
		synchronized (this.holds) {
			return new ArrayList<>(this.holds);
		}
	}

	/**
	 * Sends this side's holds of a run, each {thread, acquired, releasing, released} and,
	 * from {@link TwoJvmScenarios#oneKeyHalf}, when its acquire was called.
	 */
	void sendHolds(List<long[]> holds) {
		for (long[] hold : holds) {
			if (hold.length > 4) {
				send("hold", hold[0], hold[1], hold[2], hold[3], hold[4]);
			}
			else {
				send("hold", hold[0], hold[1], hold[2], hold[3]);
			}
		}
	}

	/**
	 * Waits until the condition holds, checking every 20 µs; fails when the other JVM is
	 * gone or failed, or after a minute.
	 */
	void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + STUCK_NANOS;
		while (!condition.getAsBoolean()) {
			if (this.closed) {
				throw new IllegalStateException("The other JVM is gone (its stream ended)");
			}
			if (this.failure != null) {
				throw new IllegalStateException("The other JVM failed: " + this.failure);
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						"Waited " + TimeUnit.NANOSECONDS.toSeconds(STUCK_NANOS) + "s for the other JVM: stuck");
			}
			LockSupport.parkNanos(20_000);
		}
	}

}
