-- Makes the sentinel first in a topic's first ready list name priority p; returns whether that
-- list was empty.
-- @include lib/keys
-- @include lib/sentinel_levels
-- @include lib/sentinel_text
local function mark_priority(topic, p)
  local key = P .. 'ready:' .. topic
  local first = redis.call('LRANGE', key, 0, 0)[1]
  local levels = sentinel_levels(first)
  if levels then
    local set = { [p] = true }
    for _, level in ipairs(levels) do
      set[level] = true
    end
    local text = sentinel_text(set)
    if text ~= first then
      redis.call('LSET', key, 0, text)
    end
    return false
  end
  redis.call('LPUSH', key, '^' .. p)
  return not first
end
