-- buckets.lua: reads and pins a namespace's bucket count.
-- ARGV[1] 'read': KEYS config hash, timers hash. Returns {pinned count or '', highest timed bucket or -1}.
-- ARGV[1] 'used': KEYS a bucket's jobs hash, its recurring hash. Returns {1 if either has entries, else 0}.
-- ARGV[1] 'pin', ARGV[2] this instance's count: KEYS config hash, timers hash. Pins the count when
-- none is. Returns {the pinned count}.
if ARGV[1] == 'used' then
  local used = redis.call('HLEN', KEYS[1]) > 0 or redis.call('HLEN', KEYS[2]) > 0
  return { used and 1 or 0 }
end
local pinned = redis.call('HGET', KEYS[1], 'buckets')
if ARGV[1] == 'pin' then
  if not pinned then
    redis.call('HSET', KEYS[1], 'buckets', ARGV[2])
  end
  return { pinned or ARGV[2] }
end
local timers = redis.call('HGETALL', KEYS[2])
local timed = -1
for i = 1, #timers, 2 do
  local bucket = tonumber(timers[i])
  if bucket and bucket > timed then
    timed = bucket
  end
end
return { pinned or '', timed }
