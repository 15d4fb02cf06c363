-- Lease semaphores (PermitSemaphore: its class documentation argues why these keep
-- exclusion and fencing on a quorum). Each script that writes returns at once, writing
-- nothing, when ARGV[1] is empty, as NodeClient sends it when it loads the scripts on a
-- (re)connect. Times are the node's own clock in ms ("now"); a permit whose expiry is
-- at or before now is dead and is purged by whichever script meets it.

--- purge-permits
-- Purges the dead permits of KEYS[1] (slot -> holder value) and KEYS[2] (sorted set:
-- slot -> expiry ms). Needs now.
local dead = redis.call('zrangebyscore', KEYS[2], '-inf', now)
for i = 1, #dead do redis.call('hdel', KEYS[1], dead[i]) end
if #dead > 0 then redis.call('zremrangebyscore', KEYS[2], '-inf', now) end

--- our-permit
-- The ownership check of the permit scripts: returns 0 unless the slot ARGV[$S] of
-- KEYS[1] holds a value that starts with the secret ARGV[1].
if ARGV[1] == '' then return 0 end
local v = redis.call('hget', KEYS[1], ARGV[$S])
if not v or #ARGV[1] < @MIN_SECRET@ or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end

--- acquire-permit
-- KEYS[1] permit holders (hash: slot -> holder value), KEYS[2] permit expiries
-- (sorted set: slot -> expiry ms), KEYS[3] fencing counter, KEYS[4] node marker (only
-- when the client knows one); ARGV[1] holder value, ARGV[2] ttl ms, ARGV[3] counter
-- retention ms, ARGV[4] the permit count, ARGV[5] the slot asked for (0 to count -
-- 1), ARGV[6] the counter's start, ARGV[7] the marker and ARGV[8] the node's floor
-- (both with KEYS[4] only).
-- Takes the slot if it is free and fewer than the permit count are live (slots at
-- or above the count, held under a larger count, count too). Returns the fencing
-- token (> 0), 0 when the marker is not the one the client knows, else -(1 + ms *
-- PERMIT_HINT_RANGE + hint): ms until the slot (or, when all are taken, the first
-- permit) expires; hint 1 + the first free slot after the one asked for in cyclic
-- order below the count (ARGV[5] + 1, ..., count - 1, 0, ..., ARGV[5] - 1), or 0 if
-- none is free. Cyclic, so that a tryAcquire sweeping the slots onward from where it
-- began learns from each refusal how far it may skip (PermitSemaphore).
if ARGV[1] == '' then return 0 end
if KEYS[4] and redis.call('get', KEYS[4]) ~= ARGV[7] then return 0 end
--@include now
--@include purge-permits
local permits = tonumber(ARGV[4])
if redis.call('zcard', KEYS[2]) >= permits then
  local first = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
  return -1 - (tonumber(first[2]) - now) * @PERMIT_HINT_RANGE@
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
  return -1 - ((tonumber(taken) - now) * @PERMIT_HINT_RANGE@ + free)
end
redis.call('hset', KEYS[1], ARGV[5], ARGV[1])
redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[5])
local last = tonumber(redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2])
redis.call('pexpire', KEYS[1], last - now)
redis.call('pexpire', KEYS[2], last - now)
--@include next-token $F=3 $S=6 $L=8

--- extend-permit
-- KEYS[1] permit holders, KEYS[2] permit expiries, KEYS[3] fencing counter; ARGV[1]
-- holder secret, ARGV[2] ttl ms, ARGV[3] counter retention ms, ARGV[4] slot.
-- Sets the permit's expiry to ttl from now if it is ours and live. Returns 1 if
-- extended, else 0.
--@include our-permit $S=4
--@include now
local score = redis.call('zscore', KEYS[2], ARGV[4])
if (not score) or tonumber(score) <= now then return 0 end
redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[4])
local last = tonumber(redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2])
redis.call('pexpire', KEYS[1], last - now)
redis.call('pexpire', KEYS[2], last - now)
redis.call('pexpire', KEYS[3], ARGV[3])
return 1

--- raise-permit
-- KEYS[1] permit holders, KEYS[2] permit expiries, KEYS[3] fencing counter; ARGV[1]
-- holder secret, ARGV[2] token, ARGV[3] counter retention ms, ARGV[4] slot.
-- Raises the counter to the token while the permit is ours and live. Returns 1, or 0.
--@include our-permit $S=4
--@include now
local score = redis.call('zscore', KEYS[2], ARGV[4])
if (not score) or tonumber(score) <= now then return 0 end
--@include raise $F=3

--- release-permit
-- KEYS[1] permit holders, KEYS[2] permit expiries; ARGV[1] holder secret, ARGV[2]
-- slot, ARGV[3] the semaphore's release hint channel (KeyLayout#permitChannel) and
-- ARGV[4] the message (both optional).
-- Frees the slot if it is ours; given the channel, then publishes the message there:
-- a release hint for registries of other processes that wait for a permit
-- (ReleaseHints), as release does for the exclusive lock. The message is the permit's
-- token and slot ("<token>:<slot>"), the same on every node, and different for every
-- permit released (permits held at once may share a token, never a slot), so that a
-- waiter hears each release once (Waiting#hint). A failed attempt's withdrawal sends
-- no channel and publishes nothing (see withdraw). The publish is a pcall, so that a
-- node that forbids it still releases. Returns 1 if freed, else 0.
--@include our-permit $S=2
redis.call('hdel', KEYS[1], ARGV[2])
redis.call('zrem', KEYS[2], ARGV[2])
if ARGV[3] then redis.pcall('publish', ARGV[3], ARGV[4]) end
return 1

--- live-permits
-- KEYS[1] permit expiries.
-- Returns the slots of the live permits, changing nothing.
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
return redis.call('zrangebyscore', KEYS[1], '(' .. now, '+inf')
