-- buckets.lua: what choosing a bucket count reads; writes nothing.
-- ARGV[1] 'pin': KEYS config hash, timers hash. Returns {pinned count or '', highest timed bucket or -1}.
-- ARGV[1] 'used': KEYS a bucket's jobs hash, its recurring hash. Returns {1 if either has entries, else 0}.
if ARGV[1] == 'used' then
  local used = redis.call('HLEN', KEYS[1]) > 0 or redis.call('HLEN', KEYS[2]) > 0
  return { used and 1 or 0 }
end
local pinned = redis.call('HGET', KEYS[1], 'buckets')
local timers = redis.call('HGETALL', KEYS[2])
local timed = -1
for i = 1, #timers, 2 do
  local bucket = tonumber(timers[i])
  if bucket and bucket > timed then
    timed = bucket
  end
end
return { pinned or '', timed }
