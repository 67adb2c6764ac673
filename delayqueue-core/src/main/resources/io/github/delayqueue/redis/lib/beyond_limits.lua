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
