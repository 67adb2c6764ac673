-- namespace.lua: pins a setting that every instance of a namespace must share at the first
-- start, and answers the pinned value (the caller refuses to start when it is not its own).
--
-- KEYS[1] "{<namespace>}:config" HASH
-- ARGV[1] the setting's name, ARGV[2] this instance's value
-- Returns {the pinned value}.
local pinned = redis.call('HGET', KEYS[1], ARGV[1])
if not pinned then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return { ARGV[2] }
end
return { pinned }
