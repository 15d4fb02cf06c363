-- Read-write locks (ReadWriteLocks: its class documentation argues why these keep
-- exclusion and fencing on a quorum). Each script returns at once, writing nothing,
-- when ARGV[1] is empty, as NodeClient sends it when it loads the scripts on a
-- (re)connect. Times in these scripts are the node's own clock in ms ("now"); an entry
-- whose expiry is at or before now is dead and is purged by whichever script meets it.
-- While readers hold a key, its lock key holds READERS, "(readers)" (Script#READERS),
-- never a prefix of a secret.

--- last-reader
-- Readers' latest expiry into "last" (nil when none is left), after purging the dead
-- ones from the readers' sorted set KEYS[$R]. Needs now.
redis.call('zremrangebyscore', KEYS[$R], '-inf', now)
local latest = redis.call('zrange', KEYS[$R], -1, -1, 'WITHSCORES')
local last = nil
if #latest > 0 then last = tonumber(latest[2]) end

--- acquire-read
-- KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers (sorted set: secret ->
-- expiry ms), KEYS[4] writer's mark, KEYS[5] node marker (only when the client knows
-- one); ARGV[1] reader secret, ARGV[2] ttl ms, ARGV[3] counter retention ms, ARGV[4]
-- the secret of this thread's write lease for a downgrade, else "", ARGV[5] the
-- counter's start, ARGV[6] the marker and ARGV[7] the node's floor (both with KEYS[5]
-- only).
-- Adds the reader unless a writer or an exclusive lock holds the key (other than the
-- downgrading writer) or a writer waits (its mark is set); the lock key then holds
-- READERS until the latest reader's expiry, so that a writer's or a mutex's SET NX
-- fails while readers hold. Returns the fencing token (> 0), 0 when the marker is not
-- the one the client knows, else -(1 + ms until the holder's or the mark's expiry).
if ARGV[1] == '' then return 0 end
if KEYS[5] and redis.call('get', KEYS[5]) ~= ARGV[6] then return 0 end
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
--@include now
--@include last-reader $R=3
redis.call('zadd', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
if (not last) or last < now + tonumber(ARGV[2]) then last = now + tonumber(ARGV[2]) end
redis.call('pexpire', KEYS[3], last - now)
if not downgrade then
  redis.call('set', KEYS[1], '(readers)', 'PX', last - now)
elseif redis.call('pttl', KEYS[1]) < last - now then
  redis.call('pexpire', KEYS[1], last - now)
end
--@include next-token $F=2 $S=5 $L=7

--- extend-read
-- KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers; ARGV[1] reader secret,
-- ARGV[2] ttl ms, ARGV[3] counter retention ms.
-- Sets the reader's expiry to ttl from now if it is still a live reader, and the
-- lock key's READERS to the latest reader's expiry (the lock key outlives every live
-- reader: a downgrading writer's value is kept that long too, so that an exclusive
-- lock's SET NX can never succeed beside a reader). Returns 1 if extended, else 0.
if ARGV[1] == '' then return 0 end
if #ARGV[1] < @MIN_SECRET@ then return 0 end
--@include now
local score = redis.call('zscore', KEYS[3], ARGV[1])
if (not score) or tonumber(score) <= now then return 0 end
redis.call('zadd', KEYS[3], now + tonumber(ARGV[2]), ARGV[1])
--@include last-reader $R=3
redis.call('pexpire', KEYS[3], last - now)
local v = redis.call('get', KEYS[1])
if (not v) or v == '(readers)' then
  redis.call('set', KEYS[1], '(readers)', 'PX', last - now)
elseif redis.call('pttl', KEYS[1]) < last - now then
  redis.call('pexpire', KEYS[1], last - now)
end
redis.call('pexpire', KEYS[2], ARGV[3])
return 1

--- raise-read
-- KEYS[1] readers, KEYS[2] fencing counter; ARGV[1] reader secret, ARGV[2] token,
-- ARGV[3] counter retention ms.
-- Raises the counter to the token while the reader is live. Returns 1, or 0 when it
-- is not.
if ARGV[1] == '' then return 0 end
if #ARGV[1] < @MIN_SECRET@ then return 0 end
--@include now
local score = redis.call('zscore', KEYS[1], ARGV[1])
if (not score) or tonumber(score) <= now then return 0 end
--@include raise $F=2

--- leave-read
-- KEYS[1] lock key, KEYS[2] readers; ARGV[1] reader secret.
-- Removes the reader; when no live reader is left, deletes the lock key if it holds
-- READERS ($PUBLISH: and publishes a release hint on the lock key's channel), else
-- shortens READERS to the latest reader's expiry. Returns 1 if the reader was there.
if ARGV[1] == '' then return 0 end
if #ARGV[1] < @MIN_SECRET@ then return 0 end
--@include now
local removed = redis.call('zrem', KEYS[2], ARGV[1])
--@include last-reader $R=2
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

--- release-read
-- As leave-read, publishing the release hint.
--@include leave-read $PUBLISH=redis.pcall('publish', KEYS[1], '')

--- withdraw-read
-- As leave-read, without the hint: for a failed attempt (see withdraw).
--@include leave-read $PUBLISH=

--- acquire-write
-- KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers, KEYS[4] writer's mark,
-- KEYS[5] node marker (only when the client knows one); ARGV[1] lock value, ARGV[2]
-- ttl ms, ARGV[3] counter retention ms, ARGV[4] the mark's ttl ms, ARGV[5] the
-- acquisition's mark (the same for all its attempts), ARGV[6] the counter's start,
-- ARGV[7] the marker and ARGV[8] the node's floor (both with KEYS[5] only).
-- Sets the lock as acquire does, but also refuses while a live reader is left (the
-- lock key holds READERS then; this checks the set too). Refused, it sets the
-- writer's mark to ARGV[5] for ARGV[4] ms, which keeps new readers out; acquired, it
-- deletes the mark if the mark is its own. Returns the fencing token (> 0), 0 when
-- the marker is not the one the client knows, else -(1 + the holders' remaining ms).
if ARGV[1] == '' then return 0 end
if KEYS[5] and redis.call('get', KEYS[5]) ~= ARGV[7] then return 0 end
--@include now
local left = nil
if redis.call('exists', KEYS[1]) == 1 then
  left = redis.call('pttl', KEYS[1])
else
--@include last-reader $R=3
  if last then left = last - now end
end
if left then
  if left < 0 then left = 0 end
  redis.call('set', KEYS[4], ARGV[5], 'PX', ARGV[4])
  return -1 - left
end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
if redis.call('get', KEYS[4]) == ARGV[5] then redis.call('del', KEYS[4]) end
--@include next-token $F=2 $S=6 $L=8

--- extend-write
-- KEYS[1] lock key, KEYS[2] fencing counter, KEYS[3] readers; ARGV[1] lock secret,
-- ARGV[2] ttl ms, ARGV[3] counter retention ms.
-- Extends a write lock as extend does, but never below the latest live reader's
-- expiry (this thread's downgrade), for the lock key must outlive every reader.
-- Returns 1 if extended, else 0.
--@include ours
--@include now
--@include last-reader $R=3
local ttl = tonumber(ARGV[2])
if last and last - now > ttl then ttl = last - now end
redis.call('pexpire', KEYS[2], ARGV[3])
return redis.call('pexpire', KEYS[1], ttl)

--- release-write
-- KEYS[1] lock key, KEYS[2] readers; ARGV[1] lock secret.
-- Releases a write lock: if the key holds the secret, it holds READERS afterwards
-- while live readers are left (this thread's downgrade), else it is deleted; then a
-- release hint is published. Returns 1, or 0 when the lock is not ours.
--@include ours
--@include now
--@include last-reader $R=2
if last then
  redis.call('set', KEYS[1], '(readers)', 'PX', last - now)
else
  redis.call('del', KEYS[1])
end
redis.pcall('publish', KEYS[1], '')
return 1

--- clear-intent
-- KEYS[1] writer's mark; ARGV[1] the acquisition's mark.
-- Deletes the mark if it is this writer's: for a writer that stopped waiting.
-- Returns 1 if deleted, else 0.
if ARGV[1] == '' then return 0 end
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
