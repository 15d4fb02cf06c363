package io.github.redlock.engine.waiting;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.github.redlock.engine.RedlockSettings;

/**
 * An acquisition as {@code Acquisition} and {@code LeaseAcquisition} drive
 * {@link Waiting}, without nodes: it enters its key's line and sends its first attempt
 * when {@link Waiting.Waiter#startsNow()} says so; an attempt stays on its way until the
 * test ends it ({@link #fail}, {@link #acquire}, {@link #giveUp}), unless
 * {@link #onAttempt} ends it on the attempt's own stack, as an attempt whose nodes all
 * answer at once does. A timeout in line gives up, as the acquisition's completion does.
 */
final class Contender implements Waiting.Entrant {

	final String name;

	final String key;

	final long deadline;

	private final Record record;

	Waiting.Waiter place;

	int attempts;

	boolean attempting;

	boolean timedOut;

	/** What its leaving the line answered when it last left: unqueue the line. */
	boolean unqueue;

	/** The line's count of its lease, once it acquired ({@link #acquire}). */
	LineHold hold;

	/** Ends an attempt on its own stack; {@code null}: the test ends it. */
	Consumer<Contender> onAttempt;

	private Contender(String name, String key, long deadline, Record record) {
		this.name = name;
		this.key = key;
		this.deadline = deadline;
		this.record = record;
	}

	/** Enters {@code key}'s line, and attempts at once if it starts now. */
	static Contender enter(String name, Waiting waiting, String key, long deadline, Record record) {
		Contender contender = new Contender(name, key, deadline, record);
		contender.place = waiting.enter(key, contender, deadline);
		if (contender.place.startsNow()) {
			contender.attempt();
		}
		return contender;
	}

	private void attempt() {
		if (this.attempting) {
			throw new AssertionError(this.name + " attempts while its attempt is on its way");
		}
		this.attempts++;
		this.attempting = true;
		this.record.started(this);
		Consumer<Contender> then = this.onAttempt;
		if (then != null) {
			then.accept(this);
		}
	}

	@Override
	public void attempt(Waiting.Waiter place) {
		if (place != this.place && this.place != null) {
			throw new AssertionError(this.name + " told another place");
		}
		attempt();
	}

	@Override
	public void timedOut(Waiting.Waiter place) {
		this.timedOut = true;
		this.record.timedOut.add(this.name);
		giveUp();
	}

	private void ended() {
		if (!this.attempting) {
			throw new AssertionError(this.name + " has no attempt on its way");
		}
		this.attempting = false;
		this.record.inFlight--;
	}

	/** Its attempt failed: tries again after {@code delayNanos}, as the line allows. */
	boolean fail(long delayNanos) {
		ended();
		return this.place.retry(delayNanos);
	}

	boolean fail(Duration delay) {
		return fail(delay.toNanos());
	}

	/**
	 * Its attempt was refused by a holder: queues the line on the nodes, as
	 * {@code Acquisition.failed} does, then tries again after {@code delayNanos}.
	 * @return the queueing arguments, or {@code null}
	 */
	String[] failQueued(long delayNanos) {
		String[] args = this.place.queueArgs();
		fail(delayNanos);
		return args;
	}

	/** Its attempt took the lease: leaves the line, which counts the lease. */
	void acquire() {
		ended();
		this.hold = this.place.leaveHolding();
		this.unqueue = this.hold.unqueue();
	}

	/**
	 * The acquisition is done without a lease (gave up, cancelled, or timed out): leaves
	 * the line.
	 */
	void giveUp() {
		if (this.attempting) {
			ended();
		}
		this.unqueue = this.place.leave();
	}

	int ahead() {
		return this.place.ahead();
	}

	@Override
	public String toString() {
		return this.name;
	}

	/** Settings with the given retry delay and jitter; the rest does not matter here. */
	static RedlockSettings settings(Duration retryDelay, Duration retryJitter) {
		return new RedlockSettings(Duration.ofMillis(50), Duration.ofSeconds(1), 0.01, retryDelay, retryJitter, "",
				Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofMinutes(10),
				Duration.ofDays(1), false);
	}

	/** What the contenders of a test did, in order. */
	static final class Record {

		/** Who attempted, one entry per attempt, in order. */
		final List<String> attempts = new ArrayList<>();

		/** The stack depth at each attempt, in order. */
		final List<Integer> depths = new ArrayList<>();

		final List<String> timedOut = new ArrayList<>();

		int inFlight;

		int mostInFlight;

		/** Whether to note the stack depth of each attempt (costly: a stack walk). */
		boolean depth;

		private void started(Contender contender) {
			this.attempts.add(contender.name);
			this.inFlight++;
			this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
			if (this.depth) {
				this.depths.add(StackWalker.getInstance().walk((frames) -> (int) frames.count()));
			}
		}

	}

}
