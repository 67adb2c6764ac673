-- @include lib/keys
-- @include lib/counts
local function flush_counts()
  for _, field in ipairs(COUNT_ORDER) do
    if COUNTS[field] ~= 0 then
      redis.call('HINCRBY', P .. 'stats', field, COUNTS[field])
    end
  end
end
