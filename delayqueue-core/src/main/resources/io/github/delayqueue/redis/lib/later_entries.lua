-- Adds to a zset of job keys by time (ms) the entries from ARGV[first], every step arguments, a
-- job key and its time right after it; one listed with a later time already (a late call about
-- an earlier run), or whose index has no value in only (when given), is left out. Returns the
-- argument index of each entry added.
-- @include lib/whole_number
-- @include lib/call_many
local function later_entries(order, first, step, only)
  local scores, added = {}, {}
  for i = first, #ARGV, step do
    local at = whole_number(i + 1)
    local before = redis.call('ZSCORE', order, ARGV[i])
    if (not only or only[i]) and (not before or tonumber(before) <= at) then
      scores[#scores + 1] = ARGV[i + 1]
      scores[#scores + 1] = ARGV[i]
      added[#added + 1] = i
    end
  end
  call_many('ZADD', order, scores)
  return added
end
