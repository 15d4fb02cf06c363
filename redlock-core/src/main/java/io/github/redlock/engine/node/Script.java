package io.github.redlock.engine.node;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script and its SHA-1, run by EVALSHA with a fallback to EVAL on NOSCRIPT. Scripts
 * use only {@code redis.call}, so they run on Redis, Valkey and KeyDB alike.
 * <p>
 * <b>Invariants.</b> Each script's contract (its KEYS, ARGV and replies) is the comment
 * at the top of its section in the Lua file of its family ({@code exclusive.lua},
 * {@code queue.lua}, {@code read-write.lua}, {@code permits.lua}, beside this class;
 * {@link ScriptText} reads them), pinned by a contract test per script
 * ({@code ScriptContractCoverageTests} fails for a script without one). The lock value's
 * layout and the turn protocol's encodings enter the text only through placeholders that
 * {@link #of} fills from {@link LockValues} and {@link TurnProtocol}, their owners; a
 * fencing counter starts and rises only in the {@code next-token} fragment
 * ({@code common.lua}).
 * <p>
 * The scripts share fragments ({@code ours}, {@code queue}, {@code now},
 * {@code next-token}: {@code common.lua}); reading a fragment's file beside the families
 * that include it is how a change to it is checked against every script that uses it.
 *
 * @param name a name for messages
 * @param text the script
 * @param sha the SHA-1 of the script, as the server computes it
 * @author redlock contributors
 */
public record Script(String name, String text, String sha) {

	/**
	 * Returns whether a reply to this script counts toward a quorum, so that a node not
	 * yet trusted after a restart must not run it.
	 */
	boolean counts() {
		return this != RELEASE && this != QUEUE_WAITER && this != WITHDRAW && this != INSPECT && this != RELEASE_READ
				&& this != WITHDRAW_READ && this != RELEASE_WRITE && this != CLEAR_INTENT && this != RELEASE_PERMIT;
	}

	/**
	 * Returns whether the script deletes what an acquisition wrote (a release or a failed
	 * attempt's withdrawal): late is better than never for these, so the client writes
	 * them however long its I/O thread was held up ({@link NodeClient}).
	 */
	boolean deletes() {
		return this == RELEASE || this == WITHDRAW || this == RELEASE_READ || this == WITHDRAW_READ
				|| this == RELEASE_WRITE || this == CLEAR_INTENT || this == RELEASE_PERMIT;
	}

	/**
	 * Returns whether the script checks the node marker first and answers 0 when it is
	 * not the one the client knows: the node lost its data.
	 */
	boolean checksMarker() {
		return this == ACQUIRE || this == ACQUIRE_READ || this == ACQUIRE_WRITE || this == ACQUIRE_PERMIT;
	}

	/**
	 * The ACL rules for the commands that read-write locks and semaphores use beyond the
	 * exclusive lock's: their readers, writers and permits live in sorted sets and a
	 * hash.
	 */
	public static final String SHARED_LOCK_RULES = "+exists +hget +hset +hdel +zadd +zcard +zrange +zrangebyscore +zrem"
			+ " +zremrangebyscore +zscore";

	/**
	 * Returns whether the script serves read-write locks or semaphores, whose commands an
	 * ACL user may lack while the exclusive lock works: a permission refused to it must
	 * not take the node out of the exclusive lock's quorums.
	 */
	boolean sharedLocks() {
		return this == ACQUIRE_READ || this == EXTEND_READ || this == RAISE_READ || this == RELEASE_READ
				|| this == WITHDRAW_READ || this == ACQUIRE_WRITE || this == EXTEND_WRITE || this == RELEASE_WRITE
				|| this == CLEAR_INTENT || this == ACQUIRE_PERMIT || this == EXTEND_PERMIT || this == RAISE_PERMIT
				|| this == RELEASE_PERMIT || this == LIVE_PERMITS;
	}

	/**
	 * Makes a script from its text, with the lock value's layout ({@link LockValues})
	 * written into it: {@code @SECRET@} the secret's length, {@code @MARK_AT@} the
	 * position (from 1, as Lua counts) of the mark or the owner's {@code :} after it,
	 * {@code @MARK@} the mark, {@code @MIN_SECRET@} the shortest secret accepted; and
	 * {@code @PERMIT_HINT_RANGE@} {@link #PERMIT_HINT_RANGE}.
	 */
	static Script of(String name, String template) {
		String text = TurnProtocol.fill(template)
			.replace("@PERMIT_HINT_RANGE@", String.valueOf(PERMIT_HINT_RANGE))
			.replace("@MIN_SECRET@", String.valueOf(LockValues.MIN_SECRET_LENGTH))
			.replace("@SECRET@", String.valueOf(LockValues.SECRET_LENGTH))
			.replace("@MARK_AT@", String.valueOf(LockValues.SECRET_LENGTH + 1))
			.replace("@MARK@", String.valueOf(LockValues.MARK));
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			return new Script(name, text, HexFormat.of().formatHex(digest));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

	/**
	 * What a semaphore's refusal multiplies the holder's remaining ms by, to add a free
	 * permit's slot (plus one, or 0 for none) below it.
	 */
	public static final long PERMIT_HINT_RANGE = 16384;

	/** The value of a lock key while readers hold it: never a prefix of a secret. */
	public static final String READERS = "(readers)";

	/** Sets an exclusive lock and gives its fencing token. */
	public static final Script ACQUIRE = load("acquire");

	/** Raises the fencing counter to a token while the lock is ours. */
	public static final Script RAISE_FENCE = load("raise-fence");

	/** Creates the node marker if it is missing, and reads it with the node's clock. */
	static final Script MARKER = load("marker");

	/**
	 * Creates a cluster slot's marker if it is missing, and reads it with its owner stamp
	 * and the node's clock.
	 */
	static final Script SLOT_MARKER = load("slot-marker");

	/**
	 * Writes a cluster slot's owner stamp, replacing its marker after a failover, while
	 * the stamp is the one read.
	 */
	static final Script SLOT_STAMP = load("slot-stamp");

	/** Reads a lock's value, remaining ms and fencing counter. */
	public static final Script INSPECT = load("inspect");

	/** Releases an exclusive lock and hands the turn on through the key's queue. */
	public static final Script RELEASE = load("release");

	/** Queues a waiting line in the key's queue, or takes it out. */
	public static final Script QUEUE_WAITER = load("queue-waiter");

	/** Withdraws a failed attempt's value, publishing nothing. */
	public static final Script WITHDRAW = load("withdraw");

	/** Extends an exclusive lock that is ours. */
	public static final Script EXTEND = load("extend");

	/** Adds a reader and gives its fencing token. */
	public static final Script ACQUIRE_READ = load("acquire-read");

	/** Extends a live reader. */
	public static final Script EXTEND_READ = load("extend-read");

	/** Raises the fencing counter to a token while the reader is live. */
	public static final Script RAISE_READ = load("raise-read");

	/** Removes a reader, publishing a release hint when it was the last. */
	public static final Script RELEASE_READ = load("release-read");

	/** Removes a failed attempt's reader, publishing nothing. */
	public static final Script WITHDRAW_READ = load("withdraw-read");

	/** Sets a write lock and gives its fencing token, or marks the writer's intent. */
	public static final Script ACQUIRE_WRITE = load("acquire-write");

	/** Extends a write lock that is ours. */
	public static final Script EXTEND_WRITE = load("extend-write");

	/** Releases a write lock, leaving the readers of its downgrade. */
	public static final Script RELEASE_WRITE = load("release-write");

	/** Deletes a writer's mark that is its own. */
	public static final Script CLEAR_INTENT = load("clear-intent");

	/** Takes a semaphore's permit slot and gives its fencing token. */
	public static final Script ACQUIRE_PERMIT = load("acquire-permit");

	/** Extends a permit that is ours. */
	public static final Script EXTEND_PERMIT = load("extend-permit");

	/** Raises the fencing counter to a token while the permit is ours. */
	public static final Script RAISE_PERMIT = load("raise-permit");

	/** Frees a permit that is ours, publishing a release hint when asked. */
	public static final Script RELEASE_PERMIT = load("release-permit");

	/** Reads the slots of a semaphore's live permits. */
	public static final Script LIVE_PERMITS = load("live-permits");

	private static Script load(String name) {
		return of(name, ScriptText.of(name));
	}

}
