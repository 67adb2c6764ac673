-- rate.lua: the permits of a topic's rate limit, in two keys of the topic's own slot
-- "{<namespace>/rate/<topic>}", apart from the buckets (which a bucket's reserve cannot write
-- together with it on a Redis Cluster).
-- KEYS[1] the grants: a zset of one member per permit granted, scored by the grant's time (ms),
-- KEYS[2] the counter that names the members.
--
-- ARGV[1] = 'take': grants up to ARGV[4] permits, as many as the window holds room for.
--   ARGV[2] the most grants in a window, ARGV[3] the window, ms (the limit's interval plus the
--   margin within which a reserve must use its permits).
--   Returns {granted, now ms, the number of the first member granted, when as many permits as
--   were wanted and not granted (at least one) will be free (ms; 0 when they are now)}.
-- ARGV[1] = 'give': gives back permits that took no job: ARGV[2] the number of the first member
--   to give back, ARGV[3] how many (the members are numbered one after another).
--   Returns the number given back.
--
-- The window's grants are what is left after the grants older than the window are removed; a
-- call's work is bounded by the grants that left the window since the last call and the
-- permits asked for.
local grants, counter = KEYS[1], KEYS[2]

if ARGV[1] == 'take' then
  local limit, window, wanted = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', grants, '-inf', string.format('%.0f', now - window))
  local held = redis.call('ZCARD', grants)
  local granted = math.max(0, math.min(wanted, limit - held))
  local first = 0
  if granted > 0 then
    first = redis.call('INCRBY', counter, granted) - granted + 1
    local members = {}
    for i = 0, granted - 1 do
      members[#members + 1] = now
      members[#members + 1] = first + i
    end
    for i = 1, #members, 1000 do
      redis.call('ZADD', grants, unpack(members, i, math.min(#members, i + 999)))
    end
    -- the grants leave with the window; nothing else would delete a topic that stops
    redis.call('PEXPIRE', grants, window)
    redis.call('PEXPIRE', counter, window)
  end
  local next_free = 0
  local need = math.max(1, wanted - granted)
  if held + granted + need > limit then
    -- the window has no room for them: they are free once the grant at this rank left it
    local rank = math.min(held + granted - limit + need - 1, held + granted - 1)
    local oldest = redis.call('ZRANGE', grants, rank, rank, 'WITHSCORES')
    if oldest[2] then
      next_free = tonumber(oldest[2]) + window
    end
  end
  return { granted, now, first, next_free }
end

if ARGV[1] == 'give' then
  local first, count = tonumber(ARGV[2]), tonumber(ARGV[3])
  local members = {}
  for i = 0, count - 1 do
    members[#members + 1] = first + i
  end
  local given = 0
  for i = 1, #members, 1000 do
    given = given + redis.call('ZREM', grants, unpack(members, i, math.min(#members, i + 999)))
  end
  return given
end

return redis.error_reply('delayqueue: rate.lua has no operation ' .. tostring(ARGV[1]))
