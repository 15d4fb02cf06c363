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
 * above it, pinned by a contract test per script ({@code ScriptContractCoverageTests}
 * fails for a script without one). The lock value's layout and the turn protocol's
 * encodings enter the text only through placeholders that {@link #of} fills from
 * {@link LockValues} and {@link TurnProtocol}, their owners; a fencing counter starts and
 * rises only in {@code NEXT_TOKEN}.
 * <p>
 * One file of mostly Lua and its contract comments, longer than the engine's classes: the
 * scripts share fragments ({@code OURS}, {@code QUEUE}, {@code NOW}, {@code NEXT_TOKEN})
 * that must be defined before the scripts that use them, and reading them side by side is
 * how a change to one fragment is checked against every script that uses it.
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
	 * {@code @MARK@} the mark, {@code @MIN_SECRET@} the shortest secret accepted.
	 */
	static Script of(String name, String template) {
		String text = TurnProtocol.fill(template)
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

	// The next fencing token, the one place a counter starts and rises: KEYS[$F] the
	// counter, KEYS[$M] the node marker (present only with the restart guard), ARGV[$L]
	// the node's floor (idem; empty for none), ARGV[3] the counter's retention ms.
	// Returns the token. A missing counter starts at the node's clock in microseconds:
	// INCR first, and only when that made it 1 (it was missing; a counter is never 0, and
	// never below the clock value it started at) is the clock read and the counter
	// written with its expiry in one SET (string.format writes it whole: a Lua number
	// would be written as 1.79e+15). With the restart guard checking the marker it starts
	// from the whole second, so that nodes starting it within the same second agree and
	// need no second round: a node that lost its counter then sits out the maximum TTL
	// before it counts, so its new counter starts seconds later. Without the guard a node
	// can restart empty within the second the counter began and start it again from the
	// same second, below the last token: it keeps the microseconds. A counter below the
	// floor is old data the node came back with, and is lifted to it. The script must
	// have called replicate_commands before its first write, as TIME follows one here.
	private static final String NEXT_TOKEN = """
			local floor = ARGV[$L] and tonumber(ARGV[$L])
			local token = redis.call('incr', KEYS[$F])
			if token == 1 then
			  local start = redis.call('time')
			  token = tonumber(start[1]) * 1000000 + 1
			  if not KEYS[$M] then token = token + tonumber(start[2]) end
			  if floor and token < floor then token = floor end
			  redis.call('set', KEYS[$F], string.format('%d', token), 'PX', ARGV[3])
			  return token
			end
			if floor and token < floor then
			  redis.call('set', KEYS[$F], ARGV[$L], 'PX', ARGV[3])
			  return floor
			end
			redis.call('pexpire', KEYS[$F], ARGV[3])
			return token
			""";

	// KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] node marker (only when the
	// client knows a marker to check); ARGV[1] lock value, ARGV[2] ttl ms, ARGV[3]
	// counter retention ms, ARGV[4] the marker the client knows and ARGV[5] the node's
	// floor (both with KEYS[3] only: RestartDecision). The token is NEXT_TOKEN's.
	// Returns the fencing token (> 0) when the lock was set, 0 when the marker is not the
	// one the client knows (the node lost its data), else, held by another owner,
	// -(1 + the holder's remaining ms + 2^33 * (1 + the counter's value mod 2^19, or 0
	// without a counter)): the remaining ms in the low 33 bits (capped at 99 days), the
	// counter's low bits above them, which tell a failed attempt whether it counted above
	// the holder's nodes (HeldReply, and the exclusive kind's withdrawal). Lua numbers
	// are doubles: the reply
	// stays below 2^53, so it is exact.
	// Bytes on the wire (RESP: an argument of n bytes costs n + 5 or 6): EVALSHA and the
	// SHA 59, numkeys 7, each key its length plus 6 (prefix, "lock:"/"fence:" and the
	// key; the marker key only with the restart guard on), the value 27 random characters
	// plus the owner (":host:pid:thread") plus 6, the ttl 8 to 11, the retention 14 (a
	// day: "86400000"; seconds would save 3 but need EXPIRE in the ACL), the marker 36 (a
	// 16-character id, ':' and the creation ms).
	public static final Script ACQUIRE = of("acquire", fence("""
			if KEYS[3] and redis.call('get', KEYS[3]) ~= ARGV[4] then return 0 end
			if redis.replicate_commands then redis.replicate_commands() end
			if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			""" + NEXT_TOKEN + """
			end
			local left = redis.call('pttl', KEYS[1])
			if left < 0 then left = 0 end
			if left > 8589934591 then left = 8589934591 end
			local counter = redis.call('get', KEYS[2])
			local low = 0
			if counter then low = tonumber(counter) % 524288 + 1 end
			return -1 - left - low * 8589934592
			""", 2, 3, 5));

	// The scripts that act on a lock already set (raise, release, extend) compare only
	// the lock value's secret part (@SECRET@ in their text: LockValues' layout) and are
	// sent only that: the owner's identity after it is for people reading the key, and
	// costs its length on every release and extension to every node. A secret shorter
	// than @MIN_SECRET@ never matches.

	// The ownership check those scripts begin with: returns 0 unless KEYS[1] holds a
	// value that starts with the secret ARGV[1].
	private static final String OURS = """
			local v = redis.call('get', KEYS[1])
			if not v or #ARGV[1] < @MIN_SECRET@ or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
			""";

	// KEYS[1] lock key, KEYS[2] fencing counter; ARGV[1] lock secret, ARGV[2] token,
	// ARGV[3] counter retention ms.
	// Raises the counter to the token while the lock is ours. Returns 1, or 0 when the
	// lock is not ours.
	public static final Script RAISE_FENCE = of("raise-fence", OURS + """
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
	public static final Script INSPECT = of("inspect", """
			return { redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1]), redis.call('get', KEYS[2]) }
			""");

	// The queue of processes waiting for a key, kept by each node beside the lock
	// (<prefix>waiters:<key>) so that a release hands the next turn to one process
	// instead of waking the head waiter of every process at once, most of whom the next
	// holder would then refuse. An entry
	// is one registry's line for the key: "<stamp>,<line id>,<expiry>;", ordered by the
	// stamp (the client's wall clock in ms, the same on every node, so that every node
	// names the same line first) and then the id; the expiry is the node's clock in ms,
	// after which the entry is dead (its line gave up, or its process died) and dropped
	// by whichever script meets it. A string, not a sorted set: the exclusive lock's ACL
	// rules (GET, SET, DEL) cover it. Entries are few (one per waiting process).
	// entries(list, now, drop): the live entries of a queue's text, without line drop.
	// enqueue(out, stamp, id, expiry): inserts an entry in order. store(q, out, now):
	// writes the queue back, expiring with its last entry, or deletes it when empty.
	private static final String QUEUE = """
			local function entries(list, now, drop)
			  local out = {}
			  if list then
			    for stamp, id, expiry in string.gmatch(list, '(%d+),([^,;]+),(%d+);') do
			      if tonumber(expiry) > now and id ~= drop then
			        out[#out + 1] = { tonumber(stamp), id, tonumber(expiry) }
			      end
			    end
			  end
			  return out
			end
			local function enqueue(out, stamp, id, expiry)
			  local at = #out + 1
			  for i = 1, #out do
			    if out[i][1] > stamp or (out[i][1] == stamp and out[i][2] > id) then
			      at = i
			      break
			    end
			  end
			  table.insert(out, at, { stamp, id, expiry })
			end
			local function store(q, out, now)
			  if #out == 0 then
			    redis.call('del', q)
			    return
			  end
			  local parts = {}
			  local last = now + 1
			  for i = 1, #out do
			    parts[i] = string.format('%d', out[i][1]) .. ',' .. out[i][2] .. ',' .. string.format('%d', out[i][3]) .. ';'
			    if out[i][3] > last then last = out[i][3] end
			  end
			  redis.call('set', q, table.concat(parts), 'PX', string.format('%d', last - now))
			end
			""";

	// KEYS[1] lock key, KEYS[2] the key's queue of waiting processes
	// (<prefix>waiters:<key>, declared as every key a script touches must be); ARGV[1]
	// lock secret, ARGV[2] the lease's fencing token, ARGV[3] "<this registry's line
	// id>,<how long its line for the key may still wait (ms) when it has waiters, else
	// empty>,<the client's clock in ms, or empty>,<1 when the line keeps the turn for
	// its own next waiter (Waiting.TURN_NANOS), else empty>,<1 when the line has reason
	// to think other processes are queued, else empty>" (KEYS[2], ARGV[2] and ARGV[3]
	// optional): one argument, not five, since each costs the client an encoding per
	// node. Deletes the key if it holds the secret; returns 0 when it does not. A line
	// that keeps the turn publishes nothing (its own next waiter takes the lock at once:
	// a hint would only wake others to be refused), leaves the queue as it is, and
	// returns 3. Otherwise it looks at the key's queue only when someone may be in it:
	// the value it deleted was marked by a line queueing while it held the key
	// (QUEUE_WAITER), or the client says so (a hint named its line with others queued
	// behind, or its line kept the turn: Waiting#releaseArgs). When nobody may be, it
	// publishes nothing and returns 1: an uncontended cycle costs the node no queue read
	// and no PUBLISH. Looking, when another line is queued it takes the first out and
	// names it in the release hint, "<token>@<line id>", followed by "+"
	// when lines remain queued after it (the named line's own release must then look:
	// its value is not marked): that line tries, the others keep waiting (Waiting#hint),
	// and this line, when it still has waiters, is queued behind it; it returns 2, so
	// that its next waiter waits its turn too instead of racing the one named. When the
	// queue is empty it publishes the token alone, which wakes every waiter subscribed,
	// and returns 1. The token tells a waiter that the hints of the other nodes are the
	// same release (Waiting#hint); neither it nor a line id is a secret. The publish is
	// a pcall, so that a node that forbids PUBLISH (an ACL without the channel, a
	// managed service) still releases; its waiters poll. A call without ARGV[3]
	// publishes the token (or nothing: '') as before the queue.
	public static final Script RELEASE = of("release", OURS + QUEUE + """
			if redis.replicate_commands then redis.replicate_commands() end
			redis.call('del', KEYS[1])
			local id, wait, stamp, keep, look = string.match(ARGV[3] or '', '^([^,]*),([^,]*),([^,]*),([^,]*),([^,]*)$')
			if keep == '1' then return @RELEASED_KEPT@ end
			if id and KEYS[2] then
			  if look ~= '1' and string.sub(v, @MARK_AT@, @MARK_AT@) ~= '@MARK@' then return @RELEASED@ end
			  local q = KEYS[2]
			  local list = redis.call('get', q)
			  if list then
			    local clock = redis.call('time')
			    local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
			    local out = entries(list, now, id)
			    if #out > 0 then
			      local named = table.remove(out, 1)[2]
			      if wait ~= '' then enqueue(out, tonumber(stamp) or now, id, now + tonumber(wait)) end
			      store(q, out, now)
			      local more = ''
			      if #out > 0 then more = '@MORE@' end
			      redis.pcall('publish', KEYS[1], ARGV[2] .. '@' .. named .. more)
			      return @RELEASED_NAMED@
			    end
			    redis.call('del', q)
			  end
			end
			redis.pcall('publish', KEYS[1], ARGV[2] or '')
			return @RELEASED@
			""");

	// KEYS[1] lock key, KEYS[2] the key's queue of waiting processes; ARGV[1] the
	// client's clock in ms, ARGV[2] this registry's line id, ARGV[3] how long the line
	// may wait at most, ms, or 0 to take it out of the queue (its waiters all left).
	// Queues the line (again, in its place by the stamp, if it was), after an attempt of
	// it was refused by a holder, so that a release names it when its turn comes, and
	// marks the holder's value so that its release looks at the queue (RELEASE): a "+"
	// after the secret, where the owner's ':' begins (LockValues), written with KEEPTTL.
	// Every script that acts on a held value compares only the secret, and Diagnostics
	// reads the owner past the mark. Returns 1 while the key is held; -2 when it is free
	// (a release came between the refusal and this, and named nobody in this line, which
	// then tries at once), queueing nothing; -3 when it writes nothing (as when
	// NodeClient loads the script). It reads the key with GET, not PTTL: the herd
	// benchmark counts a node's refused attempts by their PTTL.
	public static final Script QUEUE_WAITER = of("queue-waiter",
			QUEUE + """
					if ARGV[1] == '' then return @QUEUE_NOTHING@ end
					local held = redis.call('get', KEYS[1])
					if not held and ARGV[3] ~= '0' then return @QUEUE_FREE@ end
					if redis.replicate_commands then redis.replicate_commands() end
					local clock = redis.call('time')
					local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
					local out = entries(redis.call('get', KEYS[2]), now, ARGV[2])
					if ARGV[3] ~= '0' then enqueue(out, tonumber(ARGV[1]), ARGV[2], now + tonumber(ARGV[3])) end
					store(KEYS[2], out, now)
					if not held then return @QUEUE_FREE@ end
					if ARGV[3] ~= '0' and string.sub(held, @MARK_AT@, @MARK_AT@) == ':' then
					  redis.call('set', KEYS[1], string.sub(held, 1, @SECRET@) .. '@MARK@' .. string.sub(held, @MARK_AT@), 'KEEPTTL')
					end
					return @QUEUED@
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
	// holder a second round (the exclusive kind's withdrawal). A hint there would wake
	// the attempt's
	// own registry (it waits for the key, subscribed), which would try again at once,
	// fail again when a quorum is down, and withdraw again: a loop of thousands of
	// attempts a second. Returns 1 if deleted, else 0.
	public static final Script WITHDRAW = of("withdraw", OURS + """
			redis.call('del', KEYS[1])
			if ARGV[2] and redis.call('get', KEYS[2]) == ARGV[2] then
			  redis.call('set', KEYS[2], ARGV[3], 'PX', ARGV[4])
			end
			return 1
			""");

	// KEYS[1] lock key, KEYS[2] fencing counter; ARGV[1] lock secret, ARGV[2] ttl ms,
	// ARGV[3] counter retention ms.
	// Sets the key's ttl if it holds the secret. Returns 1 if extended, else 0.
	public static final Script EXTEND = of("extend", OURS + """
			redis.call('pexpire', KEYS[2], ARGV[3])
			return redis.call('pexpire', KEYS[1], ARGV[2])
			""");

	// Read-write locks and lease semaphores (ReadWriteLocks, PermitSemaphore: their
	// class documentation argues why these keep exclusion and fencing on a quorum).
	// Each returns at once, writing nothing, when ARGV[1] is empty, as NodeClient sends
	// it when it loads the scripts on a (re)connect.
	// Times in these scripts are the node's own clock in ms ("now"); an entry whose
	// expiry is at or before now is dead and is purged by whichever script meets it.

	/** The value of a lock key while readers hold it: never a prefix of a secret. */
	public static final String READERS = "(readers)";

	// The node's clock in ms; after replicate_commands, as the scripts write after TIME.
	private static final String NOW = """
			if redis.replicate_commands then redis.replicate_commands() end
			local clock = redis.call('time')
			local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
			""";

	// Raises the counter KEYS[$F] to ARGV[2] (the token), keeping it ARGV[3] ms.
	private static final String RAISE = """
			local current = redis.call('get', KEYS[$F])
			if (not current) or tonumber(current) < tonumber(ARGV[2]) then
			  redis.call('set', KEYS[$F], ARGV[2])
			end
			redis.call('pexpire', KEYS[$F], ARGV[3])
			return 1
			""";

	// Readers' latest expiry into "last" (nil when none is left), after purging the dead
	// ones from the readers' sorted set KEYS[$R].
	private static final String LAST_READER = """
			redis.call('zremrangebyscore', KEYS[$R], '-inf', now)
			local latest = redis.call('zrange', KEYS[$R], -1, -1, 'WITHSCORES')
			local last = nil
			if #latest > 0 then last = tonumber(latest[2]) end
			""";

	private static String fence(String script, int counter, int marker, int floor) {
		return script.replace("$F", String.valueOf(counter))
			.replace("$M", String.valueOf(marker))
			.replace("$L", String.valueOf(floor));
	}

	// KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers (sorted set: secret ->
	// expiry ms), KEYS[4] writer's mark, KEYS[5] node marker (only when the client knows
	// one); ARGV[1] reader secret, ARGV[2] ttl ms, ARGV[3] counter retention ms, ARGV[4]
	// the secret of this thread's write lease for a downgrade, else "", ARGV[5] the
	// marker and ARGV[6] the node's floor (both with KEYS[5] only).
	// Adds the reader unless a writer or an exclusive lock holds the key (other than the
	// downgrading writer) or a writer waits (its mark is set); the lock key then holds
	// READERS until the latest reader's expiry, so that a writer's or a mutex's SET NX
	// fails while readers hold. Returns the fencing token (> 0), 0 when the marker is not
	// the one the client knows, else -(1 + ms until the holder's or the mark's expiry).
	public static final Script ACQUIRE_READ = of("acquire-read", fence("""
			if ARGV[1] == '' then return 0 end
			if KEYS[5] and redis.call('get', KEYS[5]) ~= ARGV[5] then return 0 end
			local v = redis.call('get', KEYS[1])
			local downgrade = v and #ARGV[4] >= @MIN_SECRET@ and string.sub(v, 1, #ARGV[4]) == ARGV[4]
			if v and v ~= '(readers)' and not downgrade then
			  local left = redis.call('pttl', KEYS[1])
			  if left < 0 then left = 0 end
			  return -1 - left
			end
			if not downgrade then
			  local mark = redis.call('pttl', KEYS[4])
			  if mark > 0 then return -1 - mark end
			end
			""" + NOW + LAST_READER.replace("$R", "3") + """
			redis.call('zadd', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
			if (not last) or last < now + tonumber(ARGV[2]) then last = now + tonumber(ARGV[2]) end
			redis.call('pexpire', KEYS[3], last - now)
			if not downgrade then
			  redis.call('set', KEYS[1], '(readers)', 'PX', last - now)
			elseif redis.call('pttl', KEYS[1]) < last - now then
			  redis.call('pexpire', KEYS[1], last - now)
			end
			""" + NEXT_TOKEN, 2, 5, 6));

	// KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers; ARGV[1] reader secret,
	// ARGV[2] ttl ms, ARGV[3] counter retention ms.
	// Sets the reader's expiry to ttl from now if it is still a live reader, and the
	// lock key's READERS to the latest reader's expiry (the lock key outlives every live
	// reader: a downgrading writer's value is kept that long too, so that an exclusive
	// lock's SET NX can never succeed beside a reader). Returns 1 if extended, else 0.
	public static final Script EXTEND_READ = of("extend-read", """
			if ARGV[1] == '' then return 0 end
			if #ARGV[1] < @MIN_SECRET@ then return 0 end
			""" + NOW + """
			local score = redis.call('zscore', KEYS[3], ARGV[1])
			if (not score) or tonumber(score) <= now then return 0 end
			redis.call('zadd', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
			""" + LAST_READER.replace("$R", "3") + """
			redis.call('pexpire', KEYS[3], last - now)
			local v = redis.call('get', KEYS[1])
			if (not v) or v == '(readers)' then
			  redis.call('set', KEYS[1], '(readers)', 'PX', last - now)
			elseif redis.call('pttl', KEYS[1]) < last - now then
			  redis.call('pexpire', KEYS[1], last - now)
			end
			redis.call('pexpire', KEYS[2], ARGV[3])
			return 1
			""");

	// KEYS[1] readers, KEYS[2] fencing counter; ARGV[1] reader secret, ARGV[2] token,
	// ARGV[3] counter retention ms.
	// Raises the counter to the token while the reader is live. Returns 1, or 0 when it
	// is not.
	public static final Script RAISE_READ = of("raise-read", """
			if ARGV[1] == '' then return 0 end
			if #ARGV[1] < @MIN_SECRET@ then return 0 end
			""" + NOW + """
			local score = redis.call('zscore', KEYS[1], ARGV[1])
			if (not score) or tonumber(score) <= now then return 0 end
			""" + RAISE.replace("$F", "2"));

	// KEYS[1] lock key, KEYS[2] readers; ARGV[1] reader secret.
	// Removes the reader; when no live reader is left, deletes the lock key if it holds
	// READERS ($PUBLISH: and publishes a release hint on the lock key's channel), else
	// shortens READERS to the latest reader's expiry. Returns 1 if the reader was there.
	private static final String LEAVE_READ = """
			if ARGV[1] == '' then return 0 end
			if #ARGV[1] < @MIN_SECRET@ then return 0 end
			""" + NOW + """
			local removed = redis.call('zrem', KEYS[2], ARGV[1])
			""" + LAST_READER.replace("$R", "2") + """
			local v = redis.call('get', KEYS[1])
			if not last then
			  if v == '(readers)' then
			    redis.call('del', KEYS[1])
			    $PUBLISH
			  end
			else
			  redis.call('pexpire', KEYS[2], last - now)
			  if v == '(readers)' then redis.call('pexpire', KEYS[1], last - now) end
			end
			return removed
			""";

	public static final Script RELEASE_READ = of("release-read",
			LEAVE_READ.replace("$PUBLISH", "redis.pcall('publish', KEYS[1], '')"));

	// As RELEASE_READ, without the hint: for a failed attempt (see WITHDRAW).
	public static final Script WITHDRAW_READ = of("withdraw-read", LEAVE_READ.replace("$PUBLISH", ""));

	// KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers, KEYS[4] writer's mark,
	// KEYS[5] node marker (only when the client knows one); ARGV[1] lock value, ARGV[2]
	// ttl ms, ARGV[3] counter retention ms, ARGV[4] the mark's ttl ms, ARGV[5] the
	// acquisition's mark (the same for all its attempts), ARGV[6] the marker and ARGV[7]
	// the node's floor (both with KEYS[5] only).
	// Sets the lock as ACQUIRE does, but also refuses while a live reader is left (the
	// lock key holds READERS then; this checks the set too). Refused, it sets the
	// writer's mark to ARGV[5] for ARGV[4] ms, which keeps new readers out; acquired, it
	// deletes the mark if the mark is its own. Returns the fencing token (> 0), 0 when
	// the marker is not the one the client knows, else -(1 + the holders' remaining ms).
	public static final Script ACQUIRE_WRITE = of("acquire-write", fence("""
			if ARGV[1] == '' then return 0 end
			if KEYS[5] and redis.call('get', KEYS[5]) ~= ARGV[6] then return 0 end
			""" + NOW + """
			local left = nil
			if redis.call('exists', KEYS[1]) == 1 then
			  left = redis.call('pttl', KEYS[1])
			else
			""" + LAST_READER.replace("$R", "3") + """
			  if last then left = last - now end
			end
			if left then
			  if left < 0 then left = 0 end
			  redis.call('set', KEYS[4], ARGV[5], 'PX', ARGV[4])
			  return -1 - left
			end
			redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
			if redis.call('get', KEYS[4]) == ARGV[5] then redis.call('del', KEYS[4]) end
			""" + NEXT_TOKEN, 2, 5, 7));

	// KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers; ARGV[1] lock secret,
	// ARGV[2] ttl ms, ARGV[3] counter retention ms.
	// Extends a write lock as EXTEND does, but never below the latest live reader's
	// expiry (this thread's downgrade), for the lock key must outlive every reader.
	// Returns 1 if extended, else 0.
	public static final Script EXTEND_WRITE = of("extend-write", OURS + NOW + LAST_READER.replace("$R", "3") + """
			local ttl = tonumber(ARGV[2])
			if last and last - now > ttl then ttl = last - now end
			redis.call('pexpire', KEYS[2], ARGV[3])
			return redis.call('pexpire', KEYS[1], ttl)
			""");

	// KEYS[1] lock key, KEYS[2] readers; ARGV[1] lock secret.
	// Releases a write lock: if the key holds the secret, it holds READERS afterwards
	// while live readers are left (this thread's downgrade), else it is deleted; then a
	// release hint is published. Returns 1, or 0 when the lock is not ours.
	public static final Script RELEASE_WRITE = of("release-write", OURS + NOW + LAST_READER.replace("$R", "2") + """
			if last then
			  redis.call('set', KEYS[1], '(readers)', 'PX', last - now)
			else
			  redis.call('del', KEYS[1])
			end
			redis.pcall('publish', KEYS[1], '')
			return 1
			""");

	// KEYS[1] writer's mark; ARGV[1] the acquisition's mark.
	// Deletes the mark if it is this writer's: for a writer that stopped waiting.
	// Returns 1 if deleted, else 0.
	public static final Script CLEAR_INTENT = of("clear-intent", """
			if ARGV[1] == '' then return 0 end
			if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
			return 0
			""");

	/**
	 * What a semaphore's refusal multiplies the holder's remaining ms by, to add a free
	 * permit's slot (plus one, or 0 for none) below it.
	 */
	public static final long PERMIT_HINT_RANGE = 16384;

	// Purges the dead permits of KEYS[1] (slot -> holder value) and KEYS[2] (sorted set:
	// slot -> expiry ms). Needs NOW.
	private static final String PURGE_PERMITS = """
			local dead = redis.call('zrangebyscore', KEYS[2], '-inf', now)
			for i = 1, #dead do redis.call('hdel', KEYS[1], dead[i]) end
			if #dead > 0 then redis.call('zremrangebyscore', KEYS[2], '-inf', now) end
			""";

	// KEYS[1] permit holders (hash: slot -> holder value), KEYS[2] permit expiries
	// (sorted set: slot -> expiry ms), KEYS[3] fencing counter, KEYS[4] node marker (only
	// when the client knows one); ARGV[1] holder value, ARGV[2] ttl ms, ARGV[3] counter
	// retention ms, ARGV[4] the permit count, ARGV[5] the slot asked for (0 to count -
	// 1), ARGV[6] the marker and ARGV[7] the node's floor (both with KEYS[4] only).
	// Takes the slot if it is free and fewer than the permit count are live (slots at
	// or above the count, held under a larger count, count too). Returns the fencing
	// token (> 0), 0 when the marker is not the one the client knows, else -(1 + ms *
	// PERMIT_HINT_RANGE + hint): ms until the slot (or, when all are taken, the first
	// permit) expires; hint 1 + the first free slot after the one asked for in cyclic
	// order below the count (ARGV[5] + 1, ..., count - 1, 0, ..., ARGV[5] - 1), or 0 if
	// none is free. Cyclic, so that a tryAcquire sweeping the slots onward from where it
	// began learns from each refusal how far it may skip (PermitSemaphore).
	public static final Script ACQUIRE_PERMIT = of("acquire-permit", fence("""
			if ARGV[1] == '' then return 0 end
			if KEYS[4] and redis.call('get', KEYS[4]) ~= ARGV[6] then return 0 end
			""" + NOW + PURGE_PERMITS + """
			local permits = tonumber(ARGV[4])
			if redis.call('zcard', KEYS[2]) >= permits then
			  local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
			  return -1 - (tonumber(first[2]) - now) * 16384
			end
			local taken = redis.call('zscore', KEYS[2], ARGV[5])
			if taken then
			  local free = 0
			  local asked = tonumber(ARGV[5])
			  for i = 1, permits - 1 do
			    local slot = (asked + i) % permits
			    if not redis.call('zscore', KEYS[2], tostring(slot)) then
			      free = slot + 1
			      break
			    end
			  end
			  return -1 - ((tonumber(taken) - now) * 16384 + free)
			end
			redis.call('hset', KEYS[1], ARGV[5], ARGV[1])
			redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[5])
			local last = tonumber(redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2])
			redis.call('pexpire', KEYS[1], last - now)
			redis.call('pexpire', KEYS[2], last - now)
			""" + NEXT_TOKEN, 3, 4, 7));

	// The ownership check of the permit scripts: returns 0 unless the slot ARGV[$S] of
	// KEYS[1] holds a value that starts with the secret ARGV[1].
	private static final String OUR_PERMIT = """
			if ARGV[1] == '' then return 0 end
			local v = redis.call('hget', KEYS[1], ARGV[$S])
			if not v or #ARGV[1] < @MIN_SECRET@ or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
			""";

	// KEYS[1] permit holders, KEYS[2] permit expiries, KEYS[3] fencing counter; ARGV[1]
	// holder secret, ARGV[2] ttl ms, ARGV[3] counter retention ms, ARGV[4] slot.
	// Sets the permit's expiry to ttl from now if it is ours and live. Returns 1 if
	// extended, else 0.
	public static final Script EXTEND_PERMIT = of("extend-permit", OUR_PERMIT.replace("$S", "4") + NOW + """
			local score = redis.call('zscore', KEYS[2], ARGV[4])
			if (not score) or tonumber(score) <= now then return 0 end
			redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[4])
			local last = tonumber(redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2])
			redis.call('pexpire', KEYS[1], last - now)
			redis.call('pexpire', KEYS[2], last - now)
			redis.call('pexpire', KEYS[3], ARGV[3])
			return 1
			""");

	// KEYS[1] permit holders, KEYS[2] permit expiries, KEYS[3] fencing counter; ARGV[1]
	// holder secret, ARGV[2] token, ARGV[3] counter retention ms, ARGV[4] slot.
	// Raises the counter to the token while the permit is ours and live. Returns 1, or 0.
	public static final Script RAISE_PERMIT = of("raise-permit", OUR_PERMIT.replace("$S", "4") + NOW + """
			local score = redis.call('zscore', KEYS[2], ARGV[4])
			if (not score) or tonumber(score) <= now then return 0 end
			""" + RAISE.replace("$F", "3"));

	// KEYS[1] permit holders, KEYS[2] permit expiries; ARGV[1] holder secret, ARGV[2]
	// slot, ARGV[3] the semaphore's release hint channel (KeyLayout#permitChannel) and
	// ARGV[4] the message (both optional).
	// Frees the slot if it is ours; given the channel, then publishes the message there:
	// a release hint for registries of other processes that wait for a permit
	// (ReleaseHints), as RELEASE does for the exclusive lock. The message is the permit's
	// token and slot ("<token>:<slot>"), the same on every node, and different for every
	// permit released (permits held at once may share a token, never a slot), so that a
	// waiter hears each release once (Waiting#hint). A failed attempt's withdrawal sends
	// no channel and publishes nothing (see WITHDRAW). The publish is a pcall, so that a
	// node that forbids it still releases. Returns 1 if freed, else 0.
	public static final Script RELEASE_PERMIT = of("release-permit", OUR_PERMIT.replace("$S", "2") + """
			redis.call('hdel', KEYS[1], ARGV[2])
			redis.call('zrem', KEYS[2], ARGV[2])
			if ARGV[3] then redis.pcall('publish', ARGV[3], ARGV[4]) end
			return 1
			""");

	// KEYS[1] permit expiries.
	// Returns the slots of the live permits, changing nothing.
	public static final Script LIVE_PERMITS = of("live-permits", """
			local clock = redis.call('time')
			local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
			return redis.call('zrangebyscore', KEYS[1], '(' .. now, '+inf')
			""");

}
