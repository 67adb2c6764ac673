-- coordinate.lua: this instance's heartbeat and its share of bucket timers (floor(B / n) or one
-- more, by rank of name; buckets of expired instances are free). KEYS[1] instances ZSET, KEYS[2]
-- timers HASH, KEYS[3] config HASH (re-pins 'buckets', sets 'epoch', counts 'number'), KEYS[4]
-- numbers HASH (instance number -> instance). ARGV[1] instance, ARGV[2] ttl ms, ARGV[3] buckets,
-- ARGV[4] '1' to leave, '2' for the number alone (no heartbeat: an instance without timers),
-- ARGV[5] channel ('l' on a join or departure), ARGV[6] the instance's number (0: none yet).
-- The instance keeps its number (lib/token) while the numbers hash names it there, else takes the next.
-- Returns {live instances, now ms, epoch, number, bucket owned, ...}.
-- @include lib/now_ms
-- @include lib/num
-- @include lib/call_many
local me, ttl, buckets = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()

-- the instance's number, or the next of 1..9999, taken over from whichever instance held it before
local function numbered()
  local n = tonumber(ARGV[6])
  if n == 0 or redis.call('HGET', KEYS[4], num(n)) ~= me then
    n = (redis.call('HINCRBY', KEYS[3], 'number', 1) - 1) % 9999 + 1
    redis.call('HSET', KEYS[4], num(n), me)
  end
  return n
end

if ARGV[4] == '2' then
  return { 0, now, redis.call('HGET', KEYS[3], 'epoch') or '', numbered() }
end
local changed = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', num(now)) > 0
local epoch = redis.call('HGET', KEYS[3], 'epoch')
local number = tonumber(ARGV[6])
if ARGV[4] == '1' then
  redis.call('ZREM', KEYS[1], me)
else
  redis.call('HSETNX', KEYS[3], 'buckets', ARGV[3])
  if not epoch then
    epoch = num(now)
    redis.call('HSET', KEYS[3], 'epoch', epoch)
  end
  if redis.call('ZADD', KEYS[1], num(now + ttl), me) == 1 then
    changed = true
  end
  number = numbered()
end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(live)
local alive, rank = {}, nil
for i, name in ipairs(live) do
  alive[name] = true
  if name == me then
    rank = i - 1
  end
end
local owners = redis.call('HGETALL', KEYS[2])
local mine, free, owned = {}, {}, {}
for i = 1, #owners, 2 do
  owned[tonumber(owners[i])] = owners[i + 1]
end
for b = 0, buckets - 1 do
  local owner = owned[b]
  if owner == me then
    mine[#mine + 1] = b
  elseif owner == nil or not alive[owner] then
    free[#free + 1] = b
  end
end
local reply = { #live, now, epoch or '', number }
if rank == nil then
  call_many('HDEL', KEYS[2], mine)
  redis.call('PUBLISH', ARGV[5], 'l')
  return reply
end
local share = math.floor(buckets / #live)
if rank < buckets % #live then
  share = share + 1
end
while #mine > share do
  redis.call('HDEL', KEYS[2], table.remove(mine))
  changed = true
end
local start = (rank * share) % buckets
table.sort(free, function(a, b) return ((a - start) % buckets) < ((b - start) % buckets) end)
for _, b in ipairs(free) do
  if #mine >= share then
    break
  end
  redis.call('HSET', KEYS[2], b, me)
  mine[#mine + 1] = b
end
for _, b in ipairs(mine) do
  reply[#reply + 1] = b
end
if changed then
  redis.call('PUBLISH', ARGV[5], 'l')
end
return reply
