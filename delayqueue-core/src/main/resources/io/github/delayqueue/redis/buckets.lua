-- buckets.lua: what a queue built without a bucket count reads to choose one. Writes nothing;
-- every call touches one slot.
-- ARGV[1] 'pin': KEYS[1] "{<namespace>}:config" HASH, KEYS[2] "{<namespace>}:timers" HASH
--   bucket -> instance that runs its timer. Returns {the pinned count ('' when none), the
--   highest bucket that a timer was given (-1: none)}.
-- ARGV[1] 'used': KEYS[1] a bucket's jobs HASH, KEYS[2] its recurring definitions HASH.
--   Returns {1 when either has entries, else 0}.
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
