-- The exclusive lock's release and the queue of processes waiting for a key, kept by
-- each node beside the lock (KeyLayout#waitersKey) so that a release hands the next
-- turn to one process instead of waking the head waiter of every process at once, most
-- of whom the next holder would then refuse. The encodings and reply codes written
-- @LIKE_THIS@ are TurnProtocol's.

--- queue
-- An entry is one registry's line for the key: "<stamp>,<line id>,<expiry>;", ordered
-- by the stamp (the client's wall clock in ms, the same on every node, so that every
-- node names the same line first) and then the id; the expiry is the node's clock in
-- ms, after which the entry is dead (its line gave up, or its process died) and
-- dropped by whichever script meets it. A string, not a sorted set: the exclusive
-- lock's ACL rules (GET, SET, DEL) cover it. Entries are few (one per waiting process).
-- entries(list, now, drop): the live entries of a queue's text, without line drop.
-- enqueue(out, stamp, id, expiry): inserts an entry in order. store(q, out, now):
-- writes the queue back, expiring with its last entry, or deletes it when empty.
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

--- release
-- KEYS[1] lock key, KEYS[2] the key's queue of waiting processes
-- (KeyLayout#waitersKey, declared as every key a script touches must be); ARGV[1]
-- lock secret, ARGV[2] the lease's fencing token, ARGV[3] "<this registry's line
-- id>,<how long its line for the key may still wait (ms) when it has waiters, else
-- empty>,<the client's clock in ms, or empty>,<1 when the line keeps the turn for
-- its own next waiter (Waiting.TURN_NANOS), else empty>,<1 when the line has reason
-- to think other processes are queued, else empty>" (KEYS[2], ARGV[2] and ARGV[3]
-- optional): one argument, not five, since each costs the client an encoding per
-- node. Deletes the key if it holds the secret; returns 0 when it does not. A line
-- that keeps the turn publishes nothing (its own next waiter takes the lock at once:
-- a hint would only wake others to be refused), leaves the queue as it is, and
-- returns 3. Otherwise it looks at the key's queue only when someone may be in it:
-- the value it deleted was marked by a line queueing while it held the key
-- (queue-waiter), or the client says so (a hint named its line with others queued
-- behind, or its line kept the turn: Waiting#releaseArgs). When nobody may be, it
-- publishes nothing and returns 1: an uncontended cycle costs the node no queue read
-- and no PUBLISH. Looking, when another line is queued it takes the first out and
-- names it in the release hint, "<token>@<line id>", followed by "+" when lines
-- remain queued after it (the named line's own release must then look: its value is
-- not marked): that line tries, the others keep waiting (Waiting#hint), and this
-- line, when it still has waiters, is queued behind it; it returns 2, so that its
-- next waiter waits its turn too instead of racing the one named. When the queue is
-- empty it publishes the token alone, which wakes every waiter subscribed, and
-- returns 1. The token tells a waiter that the hints of the other nodes are the same
-- release (Waiting#hint); neither it nor a line id is a secret. The publish is a
-- pcall, so that a node that forbids PUBLISH (an ACL without the channel, a managed
-- service) still releases; its waiters poll. A call without ARGV[3] publishes the
-- token (or nothing: '') as before the queue.
--@include ours
--@include queue
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

--- queue-waiter
-- KEYS[1] lock key, KEYS[2] the key's queue of waiting processes; ARGV[1] the
-- client's clock in ms, ARGV[2] this registry's line id, ARGV[3] how long the line
-- may wait at most, ms, or 0 to take it out of the queue (its waiters all left).
-- Queues the line (again, in its place by the stamp, if it was), after an attempt of
-- it was refused by a holder, so that a release names it when its turn comes, and
-- marks the holder's value so that its release looks at the queue (release): a "+"
-- after the secret, where the owner's ':' begins (LockValues), written with KEEPTTL.
-- Every script that acts on a held value compares only the secret, and Diagnostics
-- reads the owner past the mark. Returns 1 while the key is held; -2 when it is free
-- (a release came between the refusal and this, and named nobody in this line, which
-- then tries at once), queueing nothing; -3 when it writes nothing (as when
-- NodeClient loads the script). It reads the key with GET, not PTTL: the herd
-- benchmark counts a node's refused attempts by their PTTL.
--@include queue
if ARGV[1] == '' then return @QUEUE_NOTHING@ end
local held = redis.call('get', KEYS[1])
if not held and ARGV[3] ~= '0' then return @QUEUE_FREE@ end
--@include now
local out = entries(redis.call('get', KEYS[2]), now, ARGV[2])
if ARGV[3] ~= '0' then enqueue(out, tonumber(ARGV[1]), ARGV[2], now + tonumber(ARGV[3])) end
store(KEYS[2], out, now)
if not held then return @QUEUE_FREE@ end
if ARGV[3] ~= '0' and string.sub(held, @MARK_AT@, @MARK_AT@) == ':' then
  redis.call('set', KEYS[1], string.sub(held, 1, @SECRET@) .. '@MARK@' .. string.sub(held, @MARK_AT@), 'KEEPTTL')
end
return @QUEUED@
