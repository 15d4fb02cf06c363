package io.github.redlock.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A Lua script and its SHA-1, run by EVALSHA with a fallback to EVAL on NOSCRIPT. Scripts
 * use only {@code redis.call}, so they run on Redis, Valkey and KeyDB alike.
 *
 * @param name a name for messages
 * @param text the script
 * @param sha the SHA-1 of the script, as the server computes it
 * @author redlock contributors
 */
record Script(String name, String text, String sha) {

	/**
	 * Returns whether a reply to this script counts toward a quorum, so that a node not
	 * yet trusted after a restart must not run it.
	 */
	boolean counts() {
		return this != RELEASE && this != WITHDRAW && this != INSPECT;
	}

	static Script of(String name, String text) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
			return new Script(name, text, HexFormat.of().formatHex(digest));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

	// KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] node marker (only when the
	// client knows a marker to check); ARGV[1] lock value, ARGV[2] ttl ms, ARGV[3]
	// counter retention ms, ARGV[4] the marker the client knows and ARGV[5] the node's
	// floor (both with KEYS[3] only: NodeTrust.floorMicros). A counter below the floor
	// is old data the node came back with, and is lifted to it. A missing
	// counter starts at the node's clock in microseconds: the script increments first and
	// starts the counter only when that made it 1 (it was missing; a counter is never 0,
	// and never below the clock value it started at), one command fewer per acquisition
	// than asking whether it exists. With the restart guard checking the marker (KEYS[3])
	// it is rounded down to the whole second, so that nodes starting it within the same
	// second agree and need no second round: a node that lost its counter then sits out
	// the maximum TTL before it counts, so its new counter starts seconds later. Without
	// the guard a node can restart empty within the second the counter began and start it
	// again from the same second, below the last token (FencingTokenIntegrationTests
	// repeated a token so): it keeps the microseconds.
	// Returns the fencing token (> 0) when the lock was set, 0 when the marker is not the
	// one the client knows (the node lost its data), else, held by another owner,
	// -(1 + the holder's remaining ms + 2^33 * (1 + the counter's value mod 2^19, or 0
	// without a counter)): the remaining ms in the low 33 bits (capped at 99 days), the
	// counter's low bits above them, which tell a failed attempt whether it counted above
	// the holder's nodes (Held, Acquisition#failed). Lua numbers are doubles: the reply
	// stays below 2^53, so it is exact.
	// Bytes on the wire (RESP: an argument of n bytes costs n + 5 or 6): EVALSHA and the
	// SHA 59, numkeys 7, each key its length plus 6 (prefix, "lock:"/"fence:" and the
	// key; the marker key only with the restart guard on), the value 27 random characters
	// plus the owner (":host:pid:thread") plus 6, the ttl 8 to 11, the retention 14 (a
	// day: "86400000"; seconds would save 3 but need EXPIRE in the ACL), the marker 36 (a
	// 16-character id, ':' and the creation ms).
	static final Script ACQUIRE = of("acquire", """
			if KEYS[3] and redis.call('get', KEYS[3]) ~= ARGV[4] then return 0 end
			if redis.replicate_commands then redis.replicate_commands() end
			if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  local token = redis.call('incr', KEYS[2])
			  if token == 1 then
			    local now = redis.call('time')
			    if KEYS[3] then
			      redis.call('set', KEYS[2], now[1] .. '000000')
			    else
			      redis.call('set', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
			    end
			    token = redis.call('incr', KEYS[2])
			  end
			  if ARGV[5] and token < tonumber(ARGV[5]) then
			    redis.call('set', KEYS[2], ARGV[5])
			    token = tonumber(ARGV[5])
			  end
			  redis.call('pexpire', KEYS[2], ARGV[3])
			  return token
			end
			local left = redis.call('pttl', KEYS[1])
			if left < 0 then left = 0 end
			if left > 8589934591 then left = 8589934591 end
			local counter = redis.call('get', KEYS[2])
			local low = 0
			if counter then low = tonumber(counter) % 524288 + 1 end
			return -1 - left - low * 8589934592
			""");

	// The scripts that act on a lock already set (raise, release, extend) compare only
	// the lock value's secret part, its first 27 characters (LockValues.SECRET_LENGTH),
	// and are sent only that: the owner's identity after it is for people reading the
	// key, and costs its length (20 to 80 bytes) on every release and extension to every
	// node. A secret shorter than 16 characters never matches, so that no caller can
	// match every value with an empty one.

	// The ownership check those scripts begin with: returns 0 unless KEYS[1] holds a
	// value that starts with the secret ARGV[1].
	private static final String OURS = """
			local v = redis.call('get', KEYS[1])
			if not v or #ARGV[1] < 16 or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
			""";

	// KEYS[1] lock key, KEYS[2] fencing counter; ARGV[1] lock secret, ARGV[2] token,
	// ARGV[3] counter retention ms.
	// Raises the counter to the token while the lock is ours. Returns 1, or 0 when the
	// lock is not ours.
	static final Script RAISE_FENCE = of("raise-fence", OURS + """
			local current = redis.call('get', KEYS[2])
			if (not current) or tonumber(current) < tonumber(ARGV[2]) then
			  redis.call('set', KEYS[2], ARGV[2])
			end
			redis.call('pexpire', KEYS[2], ARGV[3])
			return 1
			""");

	// KEYS[1] node marker; ARGV[1] a fresh random id.
	// Creates the marker if it is missing, as "<id>:<node time in ms>", and keeps it
	// otherwise. Returns {marker, node seconds, node microseconds}, and whether it was
	// created just now.
	static final Script MARKER = of("marker", """
			if redis.replicate_commands then redis.replicate_commands() end
			local now = redis.call('time')
			local marker = redis.call('get', KEYS[1])
			local created = 0
			if not marker then
			  marker = ARGV[1] .. ':' .. now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
			  redis.call('set', KEYS[1], marker)
			  created = 1
			end
			return { marker, now[1], now[2], created }
			""");

	// KEYS[1] lock key, KEYS[2] fencing counter.
	// Returns {value, pttl, counter} of the lock: value and counter false when absent.
	static final Script INSPECT = of("inspect", """
			return { redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1]), redis.call('get', KEYS[2]) }
			""");

	// KEYS[1] lock key; ARGV[1] lock secret, ARGV[2] the lease's fencing token
	// (optional).
	// Deletes the key if it holds the secret, and then publishes the token (or an empty
	// message) on the channel named as the key: a release hint for registries of other
	// processes that wait for it (ReleaseHints), who subscribe to that channel only while
	// they wait. Every node publishes it: the token tells a waiter that the hints of the
	// other nodes are the same release (Waiting#hint), and is no secret.
	// The publish is a pcall, so that a node that forbids PUBLISH (an ACL without the
	// channel, a managed service) still releases; its waiters poll. Returns 1 if deleted,
	// else 0.
	static final Script RELEASE = of("release", OURS + """
			redis.call('del', KEYS[1])
			redis.pcall('publish', KEYS[1], ARGV[2] or '')
			return 1
			""");

	// KEYS[1] lock key, KEYS[2] fencing counter (with ARGV[2] only); ARGV[1] lock secret,
	// ARGV[2] the token this node gave the attempt, ARGV[3] that token minus one, ARGV[4]
	// counter retention ms (the last three optional).
	// Deletes the key if it holds the secret, and publishes nothing: for a failed
	// attempt's values. Given the token, it also undoes the attempt's increment of the
	// counter when the counter still is that token: the value still being there, no
	// other acquisition has run on this node since (the SET NX fails while it is), so
	// the counter is back where it stood before the attempt, which no lease was granted
	// with. The client asks for this only when the attempt counted above the nodes that
	// refused it (an attempt while another owner held the lock on a quorum), so that
	// those failed attempts do not leave this node's counter ahead and cost the next
	// holder a second round (Acquisition#failed). A hint there would wake the attempt's
	// own registry (it waits for
	// the key, subscribed), which would try again at once, fail again when a quorum is
	// down, and withdraw again: a loop of thousands of attempts a second, as
	// RedlockRegistryIntegrationTests saw with three of five nodes down. Returns 1 if
	// deleted, else 0.
	static final Script WITHDRAW = of("withdraw", OURS + """
			redis.call('del', KEYS[1])
			if ARGV[2] and redis.call('get', KEYS[2]) == ARGV[2] then
			  redis.call('set', KEYS[2], ARGV[3], 'PX', ARGV[4])
			end
			return 1
			""");

	// KEYS[1] lock key, KEYS[2] fencing counter; ARGV[1] lock secret, ARGV[2] ttl ms,
	// ARGV[3] counter retention ms.
	// Sets the key's ttl if it holds the secret. Returns 1 if extended, else 0.
	static final Script EXTEND = of("extend", OURS + """
			redis.call('pexpire', KEYS[2], ARGV[3])
			return redis.call('pexpire', KEYS[1], ARGV[2])
			""");

	/**
	 * The scripts a lock call may send, loaded on every (re)connect by
	 * {@link NodeClient}.
	 */
	static final List<Script> LOCK_PATH = List.of(ACQUIRE, RAISE_FENCE, RELEASE, WITHDRAW, EXTEND);

}
