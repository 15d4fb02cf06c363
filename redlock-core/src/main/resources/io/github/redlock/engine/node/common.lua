-- The fragments the scripts of several families share. A line "--@include <name>
-- $X=value ..." in a script stands for the fragment of that name, its placeholders $X
-- written with those values (ScriptText).

--- next-token
-- The next fencing token, the one place a counter starts and rises: KEYS[$F] the
-- counter, ARGV[$S] the start the client sends (the time the nodes' clocks agree on,
-- in µs, as the client reckons it: FencingStarts), ARGV[$L] the node's floor (present
-- only with the restart guard; empty for none), ARGV[3] the counter's retention ms.
-- Returns the token: the largest of the start, the floor and the counter plus one,
-- written back with the retention. A counter only ever moves up here. The start is the
-- same on every node of an attempt, so that the nodes of a new key agree and need no
-- second round; it grows with true time, so that a counter lost or expired starts
-- above the tokens handed out before (FencingRound). A counter below the floor is old
-- data the node came back with, and is lifted to it. One SET with GET writes the start
-- and reads what was there: the common case (a new key, or a counter the clock has
-- passed) costs one command, and a counter at or above the start is written again.
local token = ARGV[$S]
if ARGV[$L] and ARGV[$L] ~= '' and tonumber(ARGV[$L]) > tonumber(token) then token = ARGV[$L] end
local previous = redis.call('set', KEYS[$F], token, 'PX', ARGV[3], 'GET')
token = tonumber(token)
if previous and tonumber(previous) >= token then
  token = tonumber(previous) + 1
  redis.call('set', KEYS[$F], string.format('%d', token), 'PX', ARGV[3])
end
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
