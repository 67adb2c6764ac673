-- promote.lua: the bucket timer's step. Moves due DELAYED jobs to their topics' ready lists and
-- re-queues RESERVED jobs whose TTR passed (READY again, or DEAD when their attempts are used up).
-- KEYS[1] jobs hash
-- ARGV[3] batch size (at most this many jobs are moved), ARGV[4] '1' for the guard re-check
-- that heals lost notifications: re-announce every topic of the bucket that has READY jobs.
-- A job whose TTR ran out is due again at its deadline (what its delivery lag is measured from).
-- Returns {moved, expired, next due ms (-1: none), now ms, number of topics that got work n,
--          topic 1 .. topic n, then for each topic with expired reservations: topic,
--          how many are READY again, how many are DEAD}.
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

-- A guard re-check looks at the heads first: when nothing is due (the usual case) it moves
-- nothing and answers from them, in two reads.
local idle, idle_next = false, -1
if ARGV[4] == '1' then
  local d = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')[2]
  local r = redis.call('ZRANGE', P .. 'reserved', 0, 0, 'WITHSCORES')[2]
  d, r = d and tonumber(d), r and tonumber(r)
  idle = (d == nil or d > now) and (r == nil or r > now)
  if d and r then
    idle_next = math.min(d, r)
  else
    idle_next = d or r or -1
  end
end

local due = idle and {} or redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', num(now), 'LIMIT', 0, batch)
if #due > 0 then
  redis.call('ZREMRANGEBYRANK', P .. 'delayed', 0, #due - 1)
  local records = {}
  for _, jobkey in ipairs(due) do
    local record = redis.call('HGET', KEYS[1], jobkey)
    if record then
      local j = decode(record)
      if j and j.state == 'D' then
        local topic = topic_of(jobkey)
        j.state = 'R'
        records[#records + 1] = jobkey
        records[#records + 1] = encode(j)
        move(topic, 'D', 'R')
        collect(topic, jobkey)
      end
    end
  end
  call_many('HSET', KEYS[1], records)
end

local expired = 0
local expiries = {}
local expiry_order = {}
local function tally(topic, index)
  if not expiries[topic] then
    expiries[topic] = { 0, 0 }
    expiry_order[#expiry_order + 1] = topic
  end
  expiries[topic][index] = expiries[topic][index] + 1
end
if #due < batch and not idle then
  local deadlines = redis.call('ZRANGEBYSCORE', P .. 'reserved', '-inf', num(now), 'WITHSCORES', 'LIMIT', 0,
    batch - #due)
  expired = #deadlines / 2
  if expired > 0 then
    redis.call('ZREMRANGEBYRANK', P .. 'reserved', 0, expired - 1)
  end
  for i = 1, #deadlines, 2 do
    local jobkey = deadlines[i]
    local record = redis.call('HGET', KEYS[1], jobkey)
    if record then
      local j = decode(record)
      if j and j.state == 'S' then
        local topic = topic_of(jobkey)
        j.due = tonumber(deadlines[i + 1])
        if j.attempt >= j.max then
          tally(topic, 2)
          j.state = 'X'
          save(jobkey, j)
          redis.call('ZADD', P .. 'dead:' .. topic, num(now), jobkey)
          redis.call('HSET', P .. 'errors', jobkey,
            'TTR of ' .. num(j.ttr) .. ' ms expired on attempt ' .. num(j.attempt) .. ' of ' .. num(j.max))
          move(topic, 'S', 'X')
        else
          tally(topic, 1)
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

local reply = { #due, expired, idle and idle_next or next_due(), now, #order }
for _, topic in ipairs(order) do
  reply[#reply + 1] = topic
end
for _, topic in ipairs(expiry_order) do
  reply[#reply + 1] = topic
  reply[#reply + 1] = expiries[topic][1]
  reply[#reply + 1] = expiries[topic][2]
end
return reply
