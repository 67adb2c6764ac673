-- namespace.lua: pins a setting every instance of a namespace shares, at the first start.
-- KEYS[1] "{<namespace>}:config"; ARGV[1] setting name, ARGV[2] this instance's value.
-- Returns {the pinned value}.
local pinned = redis.call('HGET', KEYS[1], ARGV[1])
if not pinned then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return { ARGV[2] }
end
return { pinned }
