-- schedule.lua: creates a job, or keeps / replaces an existing one with the same topic and id.
-- KEYS[1] jobs hash
-- ARGV[3] job key "<topic>:<id>", ARGV[4] topic, ARGV[5] payload,
-- ARGV[6] 'd' (ARGV[7] = delay ms from Redis's now) or 'a' (ARGV[7] = absolute due time, ms),
-- ARGV[8] ttr ms, ARGV[9] max attempts, ARGV[10] '1' to replace an existing job.
-- Returns {created (1 or 0), state letter, due ms, now ms, 1 if it became the bucket's head}.
-- A job due at or before now goes straight to READY.
local jobkey, topic = ARGV[3], ARGV[4]
local now = now_ms()
local existing = redis.call('HGET', KEYS[1], jobkey)
if existing then
  local old = decode(existing)
  if ARGV[10] ~= '1' then
    return { 0, old.state, old.due, now, 0 }
  end
  unlink(jobkey, topic, old)
  redis.call('HDEL', P .. 'errors', jobkey)
end
local due = tonumber(ARGV[7])
if ARGV[6] == 'd' then
  due = now + due
end
local j = { attempt = 0, max = tonumber(ARGV[9]), ttr = tonumber(ARGV[8]), due = due, created = now,
  token = 0, payload = ARGV[5] }
local head = place(jobkey, topic, j, now)
count(j.state, topic, 1)
return { 1, j.state, due, now, head }
