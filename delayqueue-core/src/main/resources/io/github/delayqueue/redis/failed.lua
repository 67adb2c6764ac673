-- failed.lua: the deaths of a topic that limits its DEAD jobs (its failed-job retention), in
-- one key of the topic's own slot "{<namespace>/done/<topic>}", apart from the buckets: a zset
-- of job key scored by time of death (ms, by the job's bucket's clock). The DEAD jobs
-- themselves stay in their buckets; a caller deletes there what this names (trimdead.lua),
-- then removes the entries here ('remove'), so that a caller that stops half-way leaves entries
-- that the next call names again.
-- KEYS[1] the deaths
--
-- ARGV[1] = 'add': jobs died; names the entries beyond the limits.
--   ARGV[2] most DEAD jobs kept (0: no count limit), ARGV[3] how long one is kept, ms (0: no
--   time limit; measured back from the earlier of this node's time and the latest time of
--   death given, by its bucket's node's clock: an entry is named for its age only when both
--   clocks say it is old, so a bucket node whose clock lags never makes its new death old,
--   and one whose clock leads never makes other deaths old), ARGV[4] the
--   most entries to name beyond the number added, then per job: job key, time of death (ms).
--   An entry with a later time of death already (a later death of the same id) is left as it
--   is.
--   Returns {the time the age is measured from (ms), entries, then per entry to drop (the
--   oldest first, at most added + ARGV[4]): job key, time of death}.
-- ARGV[1] = 'remove': entries dropped; per entry: job key, the time of death it was named
--   with (an entry with another time, a later death, stays).
--   Returns {entries left}.
--
-- Every write comes after the reads, and none can fail once the first succeeded.
-- @include lib/call_many
-- @include lib/whole_number
-- @include lib/node_now
-- @include lib/later_entries
-- @include lib/beyond_limits
local deaths = KEYS[1]

if ARGV[1] == 'add' then
  local keep, age, slack = whole_number(2), whole_number(3), whole_number(4)
  local latest = 0
  for i = 6, #ARGV, 2 do
    latest = math.max(latest, whole_number(i))
  end
  local now = math.min(node_now(), latest)
  -- a key of another type fails this read, before anything is written
  redis.call('ZCARD', deaths)
  local scores, added = later_entries(deaths, 5, 2)
  call_many('ZADD', deaths, scores)
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
