-- The restart guard's scripts for the masters of a cluster member: a marker and an owner
-- stamp per slot (KeyLayout), checked by SlotCheck on each master for every slot it owns.

--- slot-marker
-- KEYS[1] the slot's marker, KEYS[2] its owner stamp; ARGV[1] a fresh random id,
-- ARGV[2] this master's stamp.
-- Creates the marker if it is missing, as "<id>:<node time in ms>", as the node marker
-- script does, with this master's stamp in the same step (a slot new to the redlock has
-- lost nothing, and a check cut short must not leave a marker without a stamp, which the
-- next check would take for a failover); else reads the stamp. Returns {marker, node
-- seconds, node microseconds, whether the marker was created just now, the stamp read
-- or false}.
if redis.replicate_commands then redis.replicate_commands() end
local now = redis.call('time')
local marker = redis.call('get', KEYS[1])
if not marker then
  marker = ARGV[1] .. ':' .. now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000))
  redis.call('set', KEYS[1], marker)
  redis.call('set', KEYS[2], ARGV[2])
  return { marker, now[1], now[2], 1, false }
end
return { marker, now[1], now[2], 0, redis.call('get', KEYS[2]) }

--- slot-stamp
-- KEYS[1] the slot's marker, KEYS[2] its owner stamp; ARGV[1] the stamp the check read
-- (empty for none), ARGV[2] this master's stamp, ARGV[3] a fresh random id to replace
-- the marker with, or empty to keep it.
-- Writes the stamp, and replaces the marker when asked (a failover: the slot may have
-- lost acknowledged writes), only while the stamp is still the one the check read: of
-- two clients that judged the same change, one acts. Returns the marker now.
if redis.replicate_commands then redis.replicate_commands() end
local stamp = redis.call('get', KEYS[2]) or ''
if stamp == ARGV[1] then
  if ARGV[3] ~= '' then
    local now = redis.call('time')
    redis.call('set', KEYS[1], ARGV[3] .. ':' .. now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000)))
  end
  redis.call('set', KEYS[2], ARGV[2])
end
return redis.call('get', KEYS[1])
