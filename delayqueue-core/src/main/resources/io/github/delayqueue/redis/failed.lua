-- failed.lua: a topic's deaths, KEYS[1] job keys by time of death (the DEAD jobs stay in buckets).
-- 'add' ARGV[2] most kept (0: no limit), ARGV[3] age ms (0: none; both clocks must say old),
-- ARGV[4] extra names, then job key and death ms per job. Returns {age base ms, entries, then
-- job key and death ms per entry to drop}.
-- 'remove' job key and named death ms per entry. Returns {entries left}.
-- @include lib/call_many
-- @include lib/whole_number
-- @include lib/now_ms
-- @include lib/later_entries
-- @include lib/beyond_limits
local deaths = KEYS[1]

if ARGV[1] == 'add' then
  local keep, age, slack = whole_number(2), whole_number(3), whole_number(4)
  local latest = 0
  for i = 6, #ARGV, 2 do
    latest = math.max(latest, whole_number(i))
  end
  local now = math.min(now_ms(), latest)
  -- a key of another type fails this read, before anything is written
  redis.call('ZCARD', deaths)
  local added = later_entries(deaths, 5, 2)
  -- the oldest entries beyond the limits, at most added + slack of them
  local named, total = beyond_limits(deaths, keep, age, now, #added + slack)
  local reply = { now, total }
  for i = 1, #named do
    reply[#reply + 1] = named[i]
  end
  return reply
end

if ARGV[1] == 'remove' then
  redis.call('ZCARD', deaths)
  local gone = {}
  for i = 2, #ARGV, 2 do
    local score = redis.call('ZSCORE', deaths, ARGV[i])
    if score and tonumber(score) == whole_number(i + 1) then
      gone[#gone + 1] = ARGV[i]
    end
  end
  call_many('ZREM', deaths, gone)
  return { redis.call('ZCARD', deaths) }
end

return redis.error_reply('delayqueue: failed.lua has no operation ' .. tostring(ARGV[1]))
