-- stats.lua: the figures of one bucket; with ARGV[3], of that topic alone (work that does not
-- grow with the other topics).
-- Returns {now ms, next due ms or -1, earliest DELAYED due ms or -1, then pairs: "<state>:<topic>"
-- and its count (state D, R, S, X, or T for tombstones), "O:<topic>" and the due ms of the
-- topic's oldest overdue job}.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/default_priority
-- @include lib/ready_parts
-- @include lib/topic_of
-- @include lib/lowest
-- @include lib/earlier
-- @include lib/live_entry
local now = now_ms()
local first, first_due = lowest(P .. 'delayed')
local _, r = lowest(P .. 'reserved')
local reply = { now, earlier(first_due, r), first_due or -1 }
local only = ARGV[3]
local overdue = {}
if first and first_due <= now and (not only or topic_of(first) == only) then
  overdue[topic_of(first)] = first_due
end
local stats = only and {} or redis.call('HGETALL', P .. 'stats')
if only then
  local fields = { 'D:' .. only, 'R:' .. only, 'S:' .. only, 'X:' .. only, 'T:' .. only }
  local values = redis.call('HMGET', P .. 'stats', unpack(fields))
  for i, field in ipairs(fields) do
    stats[2 * i - 1], stats[2 * i] = field, values[i] or '0'
  end
end
for i = 1, #stats, 2 do
  -- a field at 0 waits for the guard to delete it: it is no figure (nor is one missing)
  local zero = tonumber(stats[i + 1]) == 0
  if not zero then
    reply[#reply + 1] = stats[i]
    reply[#reply + 1] = stats[i + 1]
  end
  local topic = not zero and string.match(stats[i], '^R:(.+)$')
  if topic then
    -- cancelled jobs leave tombstones in the lists: skip a few of them in each
    local seen = {}
    local entries = redis.call('LRANGE', P .. 'ready:' .. topic, 0, 15)
    for _, part in ipairs(ready_parts(topic, entries[1])) do
      if part.from > 0 or part.level ~= DEFAULT_PRIORITY then
        entries = redis.call('LRANGE', part.key, part.from, part.from + 15)
      end
      for _, jobkey in ipairs(entries) do
        local j = live_entry(jobkey, redis.call('HGET', KEYS[1], jobkey), seen, part.letter)
        if j then
          overdue[topic] = math.min(overdue[topic] or j.due, j.due)
          break
        end
      end
    end
  end
end
for topic, due in pairs(overdue) do
  reply[#reply + 1] = 'O:' .. topic
  reply[#reply + 1] = due
end
return reply
