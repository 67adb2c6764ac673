-- schedule.lua: creates jobs of this bucket, or keeps / replaces existing ones with the same
-- topic and id. A job due at or before now goes straight to READY.
-- KEYS[1] jobs hash
-- ARGV[3..] eight per job: job key "<topic>:<id>", topic, payload, 'd' (then a delay in ms from
-- Redis's now) or 'a' (then an absolute due time in ms), the time, ttr ms, max attempts,
-- '1' to replace an existing job. The numbers are decimal integers (the caller checked them).
-- Returns now ms, the number (1-based) of the job that became the bucket's head or 0, then three
-- per job: created (1 or 0), state letter, due ms. The head is checked (and announced) once,
-- after all jobs are placed.
-- Written for batches: one HMGET finds the existing jobs, and the new records, delay-queue
-- entries and ready-list entries are written with one command each at the end (or before a
-- replacement, which must see what this call created before it).
local now = now_ms()
local created36 = to36(now)
local ttr36 = {}
local reply = { now, 0 }
local before = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')[2]
local placed = {}
local created_state, created_due = {}, {}
local records, delayed, ready, topics = {}, {}, {}, {}

local jobkeys = {}
for i = 3, #ARGV, 8 do
  jobkeys[#jobkeys + 1] = ARGV[i]
end
-- the jobs that exist already, decoded before anything is written (an unreadable record
-- refuses the whole call)
local existing = {}
for i = 1, #jobkeys, 1000 do
  local found = redis.call('HMGET', KEYS[1], unpack(jobkeys, i, math.min(#jobkeys, i + 999)))
  for k = 1, #found do
    if found[k] then
      existing[i + k - 1] = readable(jobkeys[i + k - 1], found[k])
    end
  end
end

local function flush()
  call_many('HSET', KEYS[1], records)
  call_many('ZADD', P .. 'delayed', delayed)
  for _, topic in ipairs(topics) do
    push_ready(topic, ready[topic])
  end
  records, delayed, ready, topics = {}, {}, {}, {}
end

for i = 3, #ARGV, 8 do
  local jobkey, topic = ARGV[i], ARGV[i + 1]
  local n = #reply
  local number = (i - 3) / 8 + 1
  local found = existing[number]
  local exists = created_state[jobkey] or found
  if exists and ARGV[i + 7] ~= '1' then
    local state, due = created_state[jobkey], created_due[jobkey]
    if not state then
      state, due = found.state, found.due
    end
    reply[n + 1], reply[n + 2], reply[n + 3] = 0, state, due
  else
    if exists then
      flush()
      unlink(jobkey, topic, readable(jobkey, redis.call('HGET', KEYS[1], jobkey)))
      redis.call('HDEL', P .. 'errors', jobkey)
    end
    local due, due_text = tonumber(ARGV[i + 4]), ARGV[i + 4]
    if ARGV[i + 3] == 'd' then
      due = now + due
      due_text = num(due)
    end
    local state = (due <= now) and 'R' or 'D'
    local ttr = ARGV[i + 5]
    if not ttr36[ttr] then
      ttr36[ttr] = to36(tonumber(ttr))
    end
    records[#records + 1] = jobkey
    records[#records + 1] = new_record(state, ARGV[i + 6], ttr36[ttr], created36, to36(due - now), ARGV[i + 2])
    created_state[jobkey], created_due[jobkey] = state, due
    count(state, topic, 1)
    if state == 'D' then
      delayed[#delayed + 1] = due_text
      delayed[#delayed + 1] = jobkey
      placed[jobkey] = number
    else
      if not ready[topic] then
        ready[topic] = {}
        topics[#topics + 1] = topic
      end
      ready[topic][#ready[topic] + 1] = jobkey
    end
    reply[n + 1], reply[n + 2], reply[n + 3] = 1, state, due
  end
end
flush()
local head = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')
if head[1] and placed[head[1]] and (before == nil or tonumber(head[2]) < tonumber(before)) then
  redis.call('PUBLISH', CHANNEL, 'h ' .. BUCKET .. ' ' .. num(tonumber(head[2])))
  reply[2] = placed[head[1]]
end
return reply
