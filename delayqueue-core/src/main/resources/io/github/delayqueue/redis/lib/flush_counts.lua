-- @include lib/keys
-- @include lib/counts
local function flush_counts()
  for _, changed in ipairs(COUNT_ORDER) do
    local state, topic = changed[1], changed[2]
    local delta = COUNTS[state][topic]
    if delta ~= 0 then
      redis.call('HINCRBY', P .. 'stats', state .. ':' .. topic, delta)
    end
  end
end
