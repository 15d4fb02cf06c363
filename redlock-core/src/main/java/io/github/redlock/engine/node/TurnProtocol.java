package io.github.redlock.engine.node;

import org.jspecify.annotations.Nullable;

/**
 * The encodings of the turn protocol, by which processes waiting for one key take turns
 * through the key's queue on each node: the release script's spec of a line
 * ({@link Script#RELEASE}), the queue script's arguments ({@link Script#QUEUE_WAITER}),
 * the hint a release publishes, and both scripts' reply codes. {@code Waiting} decides
 * when a line queues and whose turn it is; this class only says how that is written.
 * <p>
 * <b>Invariants.</b> Every encoding and reply code of the protocol is written here, and
 * in the scripts' text only through the placeholders {@link Script#of} fills from these
 * constants: a change to one side cannot miss the other. The contract tests of the two
 * scripts speak to them through this class.
 *
 * @author redlock contributors
 */
public final class TurnProtocol {

	/**
	 * {@link Script#RELEASE}: released; it published the token alone (waking every waiter
	 * subscribed) or, when nobody may be queued, nothing.
	 */
	public static final long RELEASED = 1;

	/**
	 * {@link Script#RELEASE}: released, naming the next line queued in its hint, and
	 * queueing the releasing line behind it when the spec asked (it has waiters).
	 */
	public static final long RELEASED_NAMED = 2;

	/**
	 * {@link Script#RELEASE}: released, keeping the turn for the releasing line's own
	 * next waiter: nothing published, the queue left as it is.
	 */
	public static final long RELEASED_KEPT = 3;

	/** {@link Script#QUEUE_WAITER}: queued (or taken out) while the key is held. */
	public static final long QUEUED = 1;

	/**
	 * {@link Script#QUEUE_WAITER}: the key was free (a release came between the refusal
	 * and the queueing, naming nobody of this line), so nothing was queued.
	 */
	public static final long QUEUE_FREE = -2;

	/** {@link Script#QUEUE_WAITER}: called with nothing to write, as when loaded. */
	public static final long QUEUE_NOTHING = -3;

	/** What follows the token in a hint when more lines stay queued. */
	private static final char MORE = '+';

	private TurnProtocol() {
	}

	/**
	 * Returns the release script's spec of a line that neither keeps the turn nor asks
	 * the release to look at the queue, and has no waiter left.
	 */
	public static String idle(String lineId) {
		return lineId + ",,,,";
	}

	/**
	 * Returns the spec of a line that asks the release to look at the queue (a hint named
	 * it with others behind it, or it kept the turn), with no waiter left to queue.
	 */
	public static String look(String lineId) {
		return lineId + ",,,,1";
	}

	/**
	 * Returns the spec of a line that keeps the turn for its own next waiter.
	 */
	public static String keep(String lineId) {
		return lineId + ",,,1,";
	}

	/**
	 * Returns the spec of a line with waiters: queued behind the line the release names,
	 * with its entry living {@code entryMillis} and stamped {@code stampMillis} (the
	 * client's clock; the queue's order).
	 */
	public static String queueBehind(String lineId, long entryMillis, long stampMillis, boolean look) {
		return lineId + "," + entryMillis + "," + stampMillis + ",," + (look ? "1" : "");
	}

	/**
	 * Returns the queue script's arguments that queue a line, again in its place when
	 * {@code stampMillis} is the stamp it was queued with.
	 */
	public static String[] queue(long stampMillis, String lineId, long entryMillis) {
		return new String[] { String.valueOf(stampMillis), lineId, String.valueOf(entryMillis) };
	}

	/**
	 * Returns the queue script's arguments that take a line out of the key's queue.
	 */
	public static String[] unqueue(String lineId) {
		return new String[] { String.valueOf(System.currentTimeMillis()), lineId, "0" };
	}

	/**
	 * Reads a release's hint: {@code <token>}, or {@code <token>@<line id>} naming the
	 * line whose turn it is, followed by {@code +} when other lines stay queued.
	 * @param message the message published on the key's channel, not empty
	 * @return the hint
	 */
	public static Hint hint(String message) {
		int at = message.indexOf('@');
		if (at < 0) {
			return new Hint(message, null, false);
		}
		boolean more = message.charAt(message.length() - 1) == MORE;
		return new Hint(message.substring(0, at), message.substring(at + 1, message.length() - (more ? 1 : 0)), more);
	}

	/**
	 * Fills the protocol's placeholders in a script's text.
	 */
	static String fill(String text) {
		return text.replace("@RELEASED_NAMED@", String.valueOf(RELEASED_NAMED))
			.replace("@RELEASED_KEPT@", String.valueOf(RELEASED_KEPT))
			.replace("@RELEASED@", String.valueOf(RELEASED))
			.replace("@QUEUED@", String.valueOf(QUEUED))
			.replace("@QUEUE_FREE@", String.valueOf(QUEUE_FREE))
			.replace("@QUEUE_NOTHING@", String.valueOf(QUEUE_NOTHING))
			.replace("@MORE@", String.valueOf(MORE));
	}

	/**
	 * A release's hint.
	 *
	 * @param token the released lease's fencing token, which tells the hints of one
	 * release on several nodes apart from another's
	 * @param named the line whose turn it is, or {@code null} when the hint names none
	 * (everyone subscribed may try)
	 * @param more whether other lines stay queued behind the one named
	 */
	public record Hint(String token, @Nullable String named, boolean more) {

		/**
		 * Returns whether the hint leaves the turn to {@code lineId}: it names that line,
		 * or names none.
		 */
		public boolean turnOf(String lineId) {
			return this.named == null || this.named.equals(lineId);
		}

	}

}
