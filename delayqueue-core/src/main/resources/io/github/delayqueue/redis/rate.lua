-- rate.lua: a topic's rate-limit permits. KEYS[1] grants zset (by grant ms), KEYS[2] member counter.
-- 'take' ARGV[2] permits per window, ARGV[3] window ms, ARGV[4] wanted. Returns {granted, now ms,
-- first member granted, ms until the permits still wanted are free (0: now)}.
-- 'give' ARGV[2] first member, ARGV[3] how many, ARGV[4] their grant ms (other members are left).
-- Returns {the number given back} (a table: ScriptRunner reads every reply as a list, which Jedis
-- cannot make of an integer).
-- @include lib/call_many
-- @include lib/whole_number
-- @include lib/now_ms
-- @include lib/read_many
local grants, counter = KEYS[1], KEYS[2]

if ARGV[1] == 'take' then
  local limit, window, wanted = whole_number(2), whole_number(3), whole_number(4)
  local now = now_ms()
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
  -- a call that got none waits for the first permit, one that got some for the rest it wanted
  local need = (granted == 0) and 1 or math.min(math.max(1, wanted - granted), limit)
  if held + granted + need > limit then
    -- free once this many of the window's oldest grants have left it
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
  local members, mine = {}, {}
  for member = first, first + count - 1 do
    members[#members + 1] = member
  end
  local scores = read_many(grants, members, 'ZMSCORE')
  for k, member in ipairs(members) do
    if scores[k] and tonumber(scores[k]) == at then
      mine[#mine + 1] = member
    end
  end
  call_many('ZREM', grants, mine)
  return { #mine }
end

return redis.error_reply('delayqueue: rate.lua has no operation ' .. tostring(ARGV[1]))
