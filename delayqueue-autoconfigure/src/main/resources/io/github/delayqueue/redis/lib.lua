-- lib.lua: helpers that every delayqueue job script starts with (prepended when loaded).
--
-- Every script of a bucket gets KEYS[1] = "{<namespace>:<bucket>}:jobs"; the other keys of
-- the bucket are derived from that prefix, so all of them share one hash tag (one slot).
-- ARGV[1] = the pub/sub channel, ARGV[2] = the bucket number; the rest is the script's own.
--
-- Job record, the value of field "<topic>:<id>" in the jobs hash:
--   "<state>,<attempt>,<maxAttempts>,<ttrMs>,<dueAtMs>,<createdAtMs>,<token>\n<payload>"
-- state: D = DELAYED, R = READY, S = RESERVED, X = DEAD.
-- Stats hash fields "<state>:<topic>" count the jobs of each topic in each state, exactly.
-- Events published on the channel: "r <bucket> <topic>" when a ready list goes from empty
-- to non-empty (or on a guard re-announce), "h <bucket> <dueAt>" when a job becomes the
-- earliest of the bucket's delay queue.
local P = string.sub(KEYS[1], 1, -5)
local CHANNEL = ARGV[1]
local BUCKET = ARGV[2]

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function num(x)
  return string.format('%.0f', x)
end

local function decode(record)
  local nl = string.find(record, '\n', 1, true)
  local s, a, m, ttr, due, created, token = string.match(string.sub(record, 1, nl - 1),
    '^(%u),(%d+),(%d+),(%d+),(%d+),(%d+),(%d+)$')
  return { state = s, attempt = tonumber(a), max = tonumber(m), ttr = tonumber(ttr), due = tonumber(due),
    created = tonumber(created), token = tonumber(token), payload = string.sub(record, nl + 1) }
end

local function save(jobkey, j)
  redis.call('HSET', KEYS[1], jobkey, j.state .. ',' .. num(j.attempt) .. ',' .. num(j.max) .. ',' .. num(j.ttr)
    .. ',' .. num(j.due) .. ',' .. num(j.created) .. ',' .. num(j.token) .. '\n' .. j.payload)
end

local function topic_of(jobkey)
  return string.match(jobkey, '^([^:]+):')
end

local function count(state, topic, delta)
  local field = state .. ':' .. topic
  if redis.call('HINCRBY', P .. 'stats', field, delta) <= 0 then
    redis.call('HDEL', P .. 'stats', field)
  end
end

local function move(topic, from, to)
  count(from, topic, -1)
  count(to, topic, 1)
end

-- Appends job keys to a topic's ready list; announces the list when it was empty.
local function push_ready(topic, jobkeys, front)
  local key = P .. 'ready:' .. topic
  local len = redis.call(front and 'LPUSH' or 'RPUSH', key, unpack(jobkeys))
  if len == #jobkeys then
    redis.call('PUBLISH', CHANNEL, 'r ' .. BUCKET .. ' ' .. topic)
  end
end

-- Puts a job key into the delay queue; announces it when it became the earliest. Returns 1 then.
local function push_delayed(jobkey, due)
  redis.call('ZADD', P .. 'delayed', num(due), jobkey)
  if redis.call('ZRANGE', P .. 'delayed', 0, 0)[1] == jobkey then
    redis.call('PUBLISH', CHANNEL, 'h ' .. BUCKET .. ' ' .. num(due))
    return 1
  end
  return 0
end

-- Stores a job that waits for its due time: READY at once when due, else DELAYED.
-- Returns 1 when it became the bucket's head.
local function place(jobkey, topic, j, now)
  if j.due <= now then
    j.state = 'R'
    save(jobkey, j)
    push_ready(topic, { jobkey })
    return 0
  end
  j.state = 'D'
  save(jobkey, j)
  return push_delayed(jobkey, j.due)
end

-- Removes a job from the index of its state (a ready-list entry stays as a tombstone).
local function unlink(jobkey, topic, j)
  if j.state == 'D' then
    redis.call('ZREM', P .. 'delayed', jobkey)
  elseif j.state == 'S' then
    redis.call('ZREM', P .. 'reserved', jobkey)
  elseif j.state == 'X' then
    redis.call('ZREM', P .. 'dead:' .. topic, jobkey)
  end
  count(j.state, topic, -1)
end

-- Loads a reserved job and checks the caller's fencing token.
-- Returns the job, or nil and the reply for a job that is gone (0) or not the caller's (-1).
local function held(jobkey, token)
  local record = redis.call('HGET', KEYS[1], jobkey)
  if not record then
    return nil, 0
  end
  local j = decode(record)
  if j.state ~= 'S' or j.token ~= tonumber(token) then
    return nil, -1
  end
  return j
end

local function next_due()
  local d = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')[2]
  local r = redis.call('ZRANGE', P .. 'reserved', 0, 0, 'WITHSCORES')[2]
  if d and r then
    return math.min(tonumber(d), tonumber(r))
  end
  return tonumber(d or r or -1)
end

