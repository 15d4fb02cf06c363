-- The fragments the scripts of several families share. A line "--@include <name>
-- $X=value ..." in a script stands for the fragment of that name, its placeholders $X
-- written with those values (ScriptText).

--- next-token
-- The next fencing token, the one place a counter starts and rises: KEYS[$F] the
-- counter, KEYS[$M] the node marker (present only with the restart guard), ARGV[$L]
-- the node's floor (idem; empty for none), ARGV[3] the counter's retention ms.
-- Returns the token. A missing counter starts at the node's clock in microseconds:
-- INCR first, and only when that made it 1 (it was missing; a counter is never 0, and
-- never below the clock value it started at) is the clock read and the counter
-- written with its expiry in one SET (string.format writes it whole: a Lua number
-- would be written as 1.79e+15). With the restart guard checking the marker it starts
-- from the whole second, so that nodes starting it within the same second agree and
-- need no second round: a node that lost its counter then sits out the maximum TTL
-- before it counts, so its new counter starts seconds later. Without the guard a node
-- can restart empty within the second the counter began and start it again from the
-- same second, below the last token: it keeps the microseconds. A counter below the
-- floor is old data the node came back with, and is lifted to it. The script must
-- have called replicate_commands before its first write, as TIME follows one here.
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

--- raise
-- Raises the counter KEYS[$F] to ARGV[2] (the token), keeping it ARGV[3] ms.
local current = redis.call('get', KEYS[$F])
if (not current) or tonumber(current) < tonumber(ARGV[2]) then
  redis.call('set', KEYS[$F], ARGV[2])
end
redis.call('pexpire', KEYS[$F], ARGV[3])
return 1

--- ours
-- The ownership check the scripts that act on a lock already set (raise, release,
-- extend) begin with: returns 0 unless KEYS[1] holds a value that starts with the
-- secret ARGV[1]. They compare only the lock value's secret part (@SECRET@ in their
-- text: LockValues' layout) and are sent only that: the owner's identity after it is
-- for people reading the key, and costs its length on every release and extension to
-- every node. A secret shorter than @MIN_SECRET@ never matches.
local v = redis.call('get', KEYS[1])
if not v or #ARGV[1] < @MIN_SECRET@ or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end

--- now
-- The node's clock in ms; after replicate_commands, as the scripts write after TIME.
if redis.replicate_commands then redis.replicate_commands() end
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
