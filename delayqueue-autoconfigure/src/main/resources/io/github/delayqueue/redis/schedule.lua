-- schedule.lua: creates jobs of this bucket, or keeps / replaces existing ones with the same
-- topic and id. A job due at or before now goes straight to READY.
-- KEYS[1] jobs hash
-- ARGV[3..] eight per job: job key "<topic>:<id>", topic, payload, 'd' (then a delay in ms from
-- Redis's now) or 'a' (then an absolute due time in ms), the time, ttr ms, max attempts,
-- '1' to replace an existing job.
-- Returns five per job: created (1 or 0), state letter, due ms, now ms, 1 if it became the
-- bucket's head. The head is checked (and announced) once, after all jobs are placed.
local now = now_ms()
local reply = {}
local before = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')[2]
local placed = {}
for i = 3, #ARGV, 8 do
  local jobkey, topic = ARGV[i], ARGV[i + 1]
  local n = #reply
  local existing = redis.call('HGET', KEYS[1], jobkey)
  local keep = false
  if existing then
    local old = decode(existing)
    if ARGV[i + 7] ~= '1' then
      reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5] = 0, old.state, old.due, now, 0
      keep = true
    else
      unlink(jobkey, topic, old)
      redis.call('HDEL', P .. 'errors', jobkey)
    end
  end
  if not keep then
    local due = tonumber(ARGV[i + 4])
    if ARGV[i + 3] == 'd' then
      due = now + due
    end
    local j = { attempt = 0, max = tonumber(ARGV[i + 6]), ttr = tonumber(ARGV[i + 5]), due = due, created = now,
      token = 0, payload = ARGV[i + 2] }
    place(jobkey, topic, j, now, true)
    count(j.state, topic, 1)
    reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5] = 1, j.state, due, now, 0
    if j.state == 'D' then
      placed[jobkey] = n + 5
    end
  end
end
local head = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')
if head[1] and placed[head[1]] and (before == nil or tonumber(head[2]) < tonumber(before)) then
  redis.call('PUBLISH', CHANNEL, 'h ' .. BUCKET .. ' ' .. num(tonumber(head[2])))
  reply[placed[head[1]]] = 1
end
return reply
