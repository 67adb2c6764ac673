-- Makes the head of a topic's first ready list (key) the sentinel new (nil: none) where it was
-- old (nil: no sentinel there).
local function write_sentinel(key, old, new)
  if new == old then
    return
  elseif not new then
    redis.call('LPOP', key)
  elseif old then
    redis.call('LSET', key, 0, new)
  else
    redis.call('LPUSH', key, new)
  end
end
