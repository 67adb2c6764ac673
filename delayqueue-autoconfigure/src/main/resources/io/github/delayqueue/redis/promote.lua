-- promote.lua: the bucket timer's step. Moves due DELAYED jobs to their topics' ready lists and
-- re-queues RESERVED jobs whose TTR passed (READY again, or DEAD when their attempts are used up).
-- KEYS[1] jobs hash
-- ARGV[3] batch size (at most this many jobs are moved), ARGV[4] '1' to re-announce every
-- topic of the bucket that has READY jobs (the guard re-check that heals lost notifications).
-- Returns {moved, expired, next due ms (-1: none), now ms, topic that got work, ...}.
local batch = tonumber(ARGV[3])
local now = now_ms()
local ready = {}
local order = {}
local function collect(topic, jobkey)
  if not ready[topic] then
    ready[topic] = {}
    order[#order + 1] = topic
  end
  local list = ready[topic]
  list[#list + 1] = jobkey
end

local due = redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', num(now), 'LIMIT', 0, batch)
if #due > 0 then
  redis.call('ZREMRANGEBYRANK', P .. 'delayed', 0, #due - 1)
  for _, jobkey in ipairs(due) do
    local record = redis.call('HGET', KEYS[1], jobkey)
    if record then
      local j = decode(record)
      if j.state == 'D' then
        local topic = topic_of(jobkey)
        j.state = 'R'
        save(jobkey, j)
        move(topic, 'D', 'R')
        collect(topic, jobkey)
      end
    end
  end
end

local expired = {}
if #due < batch then
  expired = redis.call('ZRANGEBYSCORE', P .. 'reserved', '-inf', num(now), 'LIMIT', 0, batch - #due)
  if #expired > 0 then
    redis.call('ZREMRANGEBYRANK', P .. 'reserved', 0, #expired - 1)
  end
  for _, jobkey in ipairs(expired) do
    local record = redis.call('HGET', KEYS[1], jobkey)
    if record then
      local j = decode(record)
      if j.state == 'S' then
        local topic = topic_of(jobkey)
        if j.attempt >= j.max then
          j.state = 'X'
          save(jobkey, j)
          redis.call('ZADD', P .. 'dead:' .. topic, num(now), jobkey)
          redis.call('HSET', P .. 'errors', jobkey,
            'TTR of ' .. num(j.ttr) .. ' ms expired on attempt ' .. num(j.attempt) .. ' of ' .. num(j.max))
          move(topic, 'S', 'X')
        else
          j.state = 'R'
          save(jobkey, j)
          move(topic, 'S', 'R')
          collect(topic, jobkey)
        end
      end
    end
  end
end

for _, topic in ipairs(order) do
  push_ready(topic, ready[topic])
end
if ARGV[4] == '1' then
  local stats = redis.call('HGETALL', P .. 'stats')
  for i = 1, #stats, 2 do
    local topic = string.match(stats[i], '^R:(.+)$')
    if topic and not ready[topic] and tonumber(stats[i + 1]) > 0 then
      redis.call('PUBLISH', CHANNEL, 'r ' .. BUCKET .. ' ' .. topic)
      order[#order + 1] = topic
    end
  end
end

local reply = { #due, #expired, next_due(), now }
for _, topic in ipairs(order) do
  reply[#reply + 1] = topic
end
return reply
