-- Makes the sentinel first in a topic's first ready list name priority p; returns whether that
-- list was empty.
-- @include lib/keys
-- @include lib/sentinel_levels
-- @include lib/sentinel_text
-- @include lib/write_sentinel
local function mark_priority(topic, p)
  local key = P .. 'ready:' .. topic
  local first = redis.call('LRANGE', key, 0, 0)[1]
  local levels = sentinel_levels(first)
  local set = { [p] = true }
  for _, level in ipairs(levels or {}) do
    set[level] = true
  end
  write_sentinel(key, levels and first, sentinel_text(set))
  return not first
end
