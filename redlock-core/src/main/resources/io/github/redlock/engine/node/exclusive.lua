-- The exclusive lock's scripts, and the node's marker.

--- acquire
-- KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] node marker (only when the
-- client knows a marker to check); ARGV[1] lock value, ARGV[2] ttl ms, ARGV[3]
-- counter retention ms, ARGV[4] the counter's start, ARGV[5] the marker the client
-- knows and ARGV[6] the node's floor (both with KEYS[3] only: RestartDecision). The
-- token is next-token's.
-- Returns the fencing token (> 0) when the lock was set, 0 when the marker is not the
-- one the client knows (the node lost its data), else, held by another owner,
-- -(1 + the holder's remaining ms + 2^33 * (1 + the counter's value mod 2^19, or 0
-- without a counter)): the remaining ms in the low 33 bits (capped at 99 days), the
-- counter's low bits above them, which tell a failed attempt whether it counted above
-- the holder's nodes (HeldReply, and the exclusive kind's withdrawal). Lua numbers
-- are doubles: the reply stays below 2^53, so it is exact.
-- Bytes on the wire (RESP: an argument of n bytes costs n + 5 or 6): EVALSHA and the
-- SHA 59, numkeys 7, each key its length plus 6 (prefix, "lock:"/"fence:" and the
-- key; the marker key only with the restart guard on), the value 27 random characters
-- plus the owner (":host:pid:thread") plus 6, the ttl 8 to 11, the retention 14 (a
-- day: "86400000"; seconds would save 3 but need EXPIRE in the ACL), the marker 36 (a
-- 16-character id, ':' and the creation ms), the start 22 (16 digits).
if KEYS[3] and redis.call('get', KEYS[3]) ~= ARGV[5] then return 0 end
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
--@include next-token $F=2 $S=4 $L=6
end
local left = redis.call('pttl', KEYS[1])
if left < 0 then left = 0 end
if left > 8589934591 then left = 8589934591 end
local counter = redis.call('get', KEYS[2])
local low = 0
if counter then low = tonumber(counter) % 524288 + 1 end
return -1 - left - low * 8589934592

--- raise-fence
-- KEYS[1] lock key, KEYS[2] fencing counter; ARGV[1] lock secret, ARGV[2] token,
-- ARGV[3] counter retention ms.
-- Raises the counter to the token while the lock is ours. Returns 1, or 0 when the
-- lock is not ours.
--@include ours
--@include raise $F=2

--- withdraw
-- KEYS[1] lock key, KEYS[2] fencing counter (with ARGV[2] only); ARGV[1] lock secret,
-- ARGV[2] the token this node gave the attempt, ARGV[3] that token minus one, ARGV[4]
-- counter retention ms (the last three optional).
-- Deletes the key if it holds the secret, and publishes nothing: for a failed
-- attempt's values. Given the token, it also undoes the attempt's increment of the
-- counter when the counter still is that token: the value still being there, no
-- other acquisition has run on this node since (the SET NX fails while it is), so
-- the counter is back where it stood before the attempt, which no lease was granted
-- with. The client asks for this only when the attempt counted above the nodes that
-- refused it (an attempt while another owner held the lock on a quorum), so that
-- those failed attempts do not leave this node's counter ahead and cost the next
-- holder a second round (the exclusive kind's withdrawal). A hint there would wake
-- the attempt's own registry (it waits for the key, subscribed), which would try
-- again at once, fail again when a quorum is down, and withdraw again: a loop of
-- thousands of attempts a second. Returns 1 if deleted, else 0.
--@include ours
redis.call('del', KEYS[1])
if ARGV[2] and redis.call('get', KEYS[2]) == ARGV[2] then
  redis.call('set', KEYS[2], ARGV[3], 'PX', ARGV[4])
end
return 1

--- extend
-- KEYS[1] lock key, KEYS[2] fencing counter; ARGV[1] lock secret, ARGV[2] ttl ms,
-- ARGV[3] counter retention ms.
-- Sets the key's ttl if it holds the secret. Returns 1 if extended, else 0.
--@include ours
redis.call('pexpire', KEYS[2], ARGV[3])
return redis.call('pexpire', KEYS[1], ARGV[2])

--- inspect
-- KEYS[1] lock key, KEYS[2] fencing counter.
-- Returns {value, pttl, counter} of the lock: value and counter false when absent.
return { redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1]), redis.call('get', KEYS[2]) }

--- marker
-- KEYS[1] node marker; ARGV[1] a fresh random id.
-- Creates the marker if it is missing, as "<id>:<node time in ms>", and keeps it
-- otherwise. Returns {marker, node seconds, node microseconds}, and whether it was
-- created just now.
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
