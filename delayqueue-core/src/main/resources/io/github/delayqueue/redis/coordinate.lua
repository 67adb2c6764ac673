-- coordinate.lua: instance heartbeat and fair assignment of bucket timers, in one atomic step.
--
-- KEYS[1] "{<namespace>}:instances" ZSET instance -> heartbeat expiry ms
-- KEYS[2] "{<namespace>}:timers" HASH bucket -> instance that runs its timer
-- KEYS[3] "{<namespace>}:config" HASH: the pinned bucket count is written again if it is gone
-- (deleted, or evicted: it is read only at start-ups), so that an instance started later does
-- not take the namespace for a new one; its 'epoch' (Redis's time when the hash was first
-- written) changes when that happens, which tells every instance that Redis lost its data
-- ARGV[1] this instance, ARGV[2] heartbeat ttl ms, ARGV[3] number of buckets,
-- ARGV[4] '1' when this instance leaves (its buckets are freed at once), ARGV[5] the event
-- channel.
-- Returns {live instances, now ms, epoch, bucket owned by this instance, ...}. Joins and departures are
-- announced with "l" on the channel, so that every instance re-coordinates at once. Between
-- coordinations an instance only renews its heartbeat, without this script
-- (QueueScripts.renew), and coordinates when the renewal finds its heartbeat gone or another
-- one run out.
-- Every live timer instance's share is floor(B / n) or one more (by rank of its name), so shares
-- differ by one at most; a bucket whose owner's heartbeat expired is free and taken at once.
local me, ttl, buckets = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local fmt = function(x) return string.format('%.0f', x) end
local changed = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', fmt(now)) > 0
local epoch = redis.call('HGET', KEYS[3], 'epoch')
if ARGV[4] == '1' then
  redis.call('ZREM', KEYS[1], me)
else
  redis.call('HSETNX', KEYS[3], 'buckets', ARGV[3])
  if not epoch then
    epoch = fmt(now)
    redis.call('HSET', KEYS[3], 'epoch', epoch)
  end
  if redis.call('ZADD', KEYS[1], fmt(now + ttl), me) == 1 then
    -- joined: the others give up their extra buckets when they hear of it
    changed = true
  end
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
local reply = { #live, now, epoch or '' }
if rank == nil then
  -- leaving: free every bucket and tell the others to re-coordinate now
  for _, b in ipairs(mine) do
    redis.call('HDEL', KEYS[2], b)
  end
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
