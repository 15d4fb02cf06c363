package io.github.redlock.engine.waiting;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A typed snapshot of one key's waiting line, so that tests assert on fields rather than
 * on the text of {@link Waiting#describe(String)}.
 * <p>
 * Read from the line itself, under its monitor, as {@code Waiting} reads it: this class
 * sits in Waiting's package, so the tests need no accessor in the main code.
 * {@link #parse(String)} reads {@code describe}'s text the same way, strictly, for what
 * only has that text (a log line).
 *
 * @param exists whether the key has a line at all ({@code "no line"} otherwise)
 * @param waiters the phase of each waiter, in line order
 * @param holders the holders the line counts
 * @param ownPermits a semaphore's line: the permits this registry holds
 * @param hinted whether release hints for the key are asked for, as the head waits
 * @author redlock contributors
 */
public record WaitingLine(boolean exists, List<Phase> waiters, int holders, int ownPermits, boolean hinted) {

	private static final Pattern LINE = Pattern.compile(
			"waiters \\[([0-9,]*)\\] \\((\\d+) queued, (\\d+) attempting, (\\d+) sleeping\\), holders (-?\\d+), own permits (-?\\d+), hinted (true|false)");

	/** A key with no line. */
	public static final WaitingLine NONE = new WaitingLine(false, List.of(), 0, 0, false);

	/**
	 * Takes a snapshot of the key's line.
	 * @param waiting the lines
	 * @param key the key
	 * @return the snapshot, {@link #NONE} for a key with no line
	 */
	public static WaitingLine of(Waiting waiting, String key) {
		Line line = waiting.lines.get(key);
		if (line == null) {
			return NONE;
		}
		synchronized (line) {
			List<Phase> waiters = new ArrayList<>();
			for (Place waiter : line.waiters) {
				waiters.add(Phase.of(waiter.phase));
			}
			return new WaitingLine(true, List.copyOf(waiters), line.holders, line.ownPermits, line.hinted);
		}
	}

	static WaitingLine parse(String described) {
		if ("no line".equals(described)) {
			return NONE;
		}
		Matcher matcher = LINE.matcher(described);
		if (!matcher.matches()) {
			throw new IllegalStateException("Unrecognised waiting line: " + described);
		}
		for (Phase phase : Phase.values()) {
			int code = Integer.parseInt(matcher.group(2 + phase.ordinal()));
			if (code != phase.code) {
				throw new IllegalStateException(
						"Phase " + phase + " is coded " + code + ", not " + phase.code + ": " + described);
			}
		}
		List<Phase> waiters = new ArrayList<>();
		if (!matcher.group(1).isEmpty()) {
			for (String code : matcher.group(1).split(",")) {
				waiters.add(Phase.of(Integer.parseInt(code)));
			}
		}
		return new WaitingLine(true, List.copyOf(waiters), Integer.parseInt(matcher.group(5)),
				Integer.parseInt(matcher.group(6)), Boolean.parseBoolean(matcher.group(7)));
	}

	/**
	 * Returns whether the line holds exactly these waiters, in this order.
	 * @param phases the phase of each waiter
	 * @return whether the waiters are these
	 */
	public boolean waitersAre(Phase... phases) {
		return this.waiters.equals(List.of(phases));
	}

	/**
	 * A waiter's phase.
	 */
	public enum Phase {

		/** Not the head: waits its turn, with only its deadline scheduled. */
		QUEUED(0),

		/** The head, with an attempt on its way. */
		ATTEMPTING(1),

		/** The head, waiting for a wake-up or its next poll. */
		SLEEPING(2);

		private final int code;

		Phase(int code) {
			this.code = code;
		}

		static Phase of(int code) {
			for (Phase phase : values()) {
				if (phase.code == code) {
					return phase;
				}
			}
			throw new IllegalStateException("Unknown waiter phase " + code);
		}

	}

}
