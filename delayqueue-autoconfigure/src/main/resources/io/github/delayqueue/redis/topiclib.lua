-- topiclib.lua: helpers of the scripts on a topic's own slot (completed.lua, failed.lua, rate.lua),
-- laid out as lib.lua's: each script starts with those it names. Their keys are the topic's,
-- not a bucket's: lib.lua, whose helpers work on a bucket, is not theirs.

-- The most values one command takes from unpack (Lua's limit is near 8,000).
local CHUNK = 1000

-- Runs a command with a key and many arguments, in chunks that Lua's unpack can take.
local function call_many(command, key, items)
  for i = 1, #items, CHUNK do
    redis.call(command, key, unpack(items, i, math.min(#items, i + CHUNK - 1)))
  end
end

-- A whole number argument, or an error naming it (raised before anything is written).
local function whole(i)
  local n = tonumber(ARGV[i])
  if not n or n < 0 or n ~= math.floor(n) then
    error('delayqueue: argument ' .. i .. ' of a topic script must be a whole number, was ' .. tostring(ARGV[i]))
  end
  return n
end


-- This node's time, ms.
local function node_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The entries to add to a zset of job keys by time (ms): from ARGV[first], every step
-- arguments, a job key and its time right after it. One listed with a later time already (a
-- late call about an earlier run) is left out. Returns the ZADD arguments (time, key, ...)
-- and the argument index of each entry to add.
local function later_entries(order, first, step)
  local scores, added = {}, {}
  for i = first, #ARGV, step do
    local at = whole(i + 1)
    local before = redis.call('ZSCORE', order, ARGV[i])
    if not before or tonumber(before) <= at then
      scores[#scores + 1] = ARGV[i + 1]
      scores[#scores + 1] = ARGV[i]
      added[#added + 1] = i
    end
  end
  return scores, added
end

-- The oldest entries of a zset of job keys by time (ms) beyond the limits: those older than
-- age ms before now (0: no time limit), then the oldest beyond keep entries (0: no count
-- limit), at most budget in all. Returns them (job key, time, ... oldest first) and the number
-- of entries in the zset.
local function beyond_limits(order, keep, age, now, budget)
  local named = {}
  if age > 0 then
    named = redis.call('ZRANGEBYSCORE', order, '-inf', '(' .. string.format('%.0f', now - age), 'WITHSCORES',
      'LIMIT', 0, budget)
  end
  local n = #named / 2
  local total = redis.call('ZCARD', order)
  if keep > 0 and total - n > keep and n < budget then
    local more = math.min(total - n - keep, budget - n)
    local oldest = redis.call('ZRANGE', order, n, n + more - 1, 'WITHSCORES')
    for i = 1, #oldest do
      named[#named + 1] = oldest[i]
    end
  end
  return named, total
end
