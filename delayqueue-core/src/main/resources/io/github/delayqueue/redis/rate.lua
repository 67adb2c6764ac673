-- rate.lua: the permits of a topic's rate limit, in two keys of the topic's own slot
-- "{<namespace>/rate/<topic>}", apart from the buckets (which a bucket's reserve cannot write
-- together with it on a Redis Cluster).
-- KEYS[1] the grants: a zset of one member per permit granted, scored by the grant's time (ms),
-- KEYS[2] the counter that numbers the members.
--
-- ARGV[1] = 'take': grants up to ARGV[4] permits, as many as the window holds room for.
--   ARGV[2] the most grants in a window, ARGV[3] the window, ms (the limit's interval plus the
--   margin within which a reserve must use its permits).
--   Returns {granted, now ms, the number of the first member granted, when the permits still
--   wanted will be free (ms; 0 when they are now): one for a call that got none, else those
--   it did not get, at most the limit}.
-- ARGV[1] = 'give': gives back permits that took no job: ARGV[2] the number of the first member
--   to give back, ARGV[3] how many (the members are numbered one after another), ARGV[4] their
--   grant time: a member that does not have it (the counter started again after the keys
--   expired, and the number is another grant's) is left alone.
--   Returns the number given back.
--
-- Every argument is checked and everything read before the first write. A call's work is
-- bounded: it removes at most 1,000 (or twice the permits wanted) grants that left the window,
-- the rest with later calls (the window is counted, not the whole set).
-- @include lib/call_many
-- @include lib/whole_number
-- @include lib/node_now
local grants, counter = KEYS[1], KEYS[2]

if ARGV[1] == 'take' then
  local limit, window, wanted = whole_number(2), whole_number(3), whole_number(4)
  local now = node_now()
  local cutoff = string.format('%.0f', now - window)
  -- the grants in the window (a grant leaves it when now - window reaches its time)
  local held = redis.call('ZCOUNT', grants, '(' .. cutoff, '+inf')
  local last = tonumber(redis.call('GET', counter) or '0')
  if not last then
    error('delayqueue: the counter ' .. counter .. ' does not hold a number')
  end
  local granted = math.max(0, math.min(wanted, limit - held))
  local gone = redis.call('ZRANGEBYSCORE', grants, '-inf', cutoff, 'LIMIT', 0, math.max(1000, 2 * wanted))
  local next_free = 0
  -- a call that got none waits for the first permit (as early as any other consumer); one
  -- that got some, for the rest it wanted (never more than the window can hold)
  local need = (granted == 0) and 1 or math.min(math.max(1, wanted - granted), limit)
  if held + granted + need > limit then
    -- the window has no room for them: they are free once this many of its grants, oldest
    -- first, have left it (the ones granted now are the newest)
    local rank = held + granted + need - limit - 1
    if rank < held then
      local oldest = redis.call('ZRANGEBYSCORE', grants, '(' .. cutoff, '+inf', 'WITHSCORES', 'LIMIT', rank, 1)
      next_free = oldest[2] and (tonumber(oldest[2]) + window) or (now + window)
    else
      next_free = now + window
    end
  end
  -- writes
  call_many('ZREM', grants, gone)
  local first = 0
  if granted > 0 then
    first = redis.call('INCRBY', counter, granted) - granted + 1
    local members = {}
    for i = 0, granted - 1 do
      members[#members + 1] = now
      members[#members + 1] = first + i
    end
    call_many('ZADD', grants, members)
    -- the grants leave with the window; nothing else would delete a topic that stops
    redis.call('PEXPIRE', grants, window)
    redis.call('PEXPIRE', counter, window)
  end
  return { granted, now, first, next_free }
end

if ARGV[1] == 'give' then
  local first, count, at = whole_number(2), whole_number(3), whole_number(4)
  local members = {}
  for i = 0, count - 1 do
    members[#members + 1] = first + i
  end
  local mine = {}
  for i = 1, #members, 1000 do
    local chunk = { unpack(members, i, math.min(#members, i + 999)) }
    local scores = redis.call('ZMSCORE', grants, unpack(chunk))
    for k, score in ipairs(scores) do
      if score and tonumber(score) == at then
        mine[#mine + 1] = chunk[k]
      end
    end
  end
  call_many('ZREM', grants, mine)
  return #mine
end

return redis.error_reply('delayqueue: rate.lua has no operation ' .. tostring(ARGV[1]))
