-- The entries to add to a zset of job keys by time (ms): from ARGV[first], every step
-- arguments, a job key and its time right after it. One listed with a later time already (a
-- late call about an earlier run) is left out. Returns the ZADD arguments (time, key, ...)
-- and the argument index of each entry to add.
-- @include lib/whole_number
local function later_entries(order, first, step)
  local scores, added = {}, {}
  for i = first, #ARGV, step do
    local at = whole_number(i + 1)
    local before = redis.call('ZSCORE', order, ARGV[i])
    if not before or tonumber(before) <= at then
      scores[#scores + 1] = ARGV[i + 1]
      scores[#scores + 1] = ARGV[i]
      added[#added + 1] = i
    end
  end
  return scores, added
end
