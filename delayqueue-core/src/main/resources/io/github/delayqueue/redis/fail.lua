-- fail.lua: retries a reserved job after a back-off, or makes it DEAD; records the error.
-- ARGV[3] job key, ARGV[4] token, ARGV[5] back-off ms (-1: dead now), ARGV[6] error text.
-- Returns {1 retrying | 2 dead | 0 no such job | -1 stale token, due ms or death time, 1 if new head}.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/topic_of
-- @include lib/move
-- @include lib/place
-- @include lib/gathered
-- @include lib/gather_dead
-- @include lib/write_gathered
-- @include lib/held
local jobkey = ARGV[3]
local j, refused = held(jobkey, ARGV[4])
if not j then
  return { refused, 0, 0 }
end
local topic = topic_of(jobkey)
local now = now_ms()
local backoff = tonumber(ARGV[5])
redis.call('ZREM', P .. 'reserved', jobkey)
if backoff < 0 or j.attempt >= j.max then
  local w = gathered()
  gather_dead(w, jobkey, topic, j, now, ARGV[6])
  write_gathered(w)
  return { 2, now, 0 }
end
redis.call('HSET', P .. 'errors', jobkey, ARGV[6])
j.due = now + backoff
local head = place(jobkey, topic, j, now)
move(topic, 'S', j.state)
return { 1, j.due, head }
