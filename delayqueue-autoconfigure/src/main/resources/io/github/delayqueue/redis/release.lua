-- release.lua: a consumer gives back a reservation it never started (shutdown): the job is READY
-- again at the front of its list, at once, and the attempt it did not make is not counted.
-- KEYS[1] jobs hash, KEYS[2] guard
-- ARGV[3] job key, ARGV[4] token
-- Returns {1} released, {0} no such job, {-1} stale token.
local jobkey = ARGV[3]
local j, refused = held(jobkey, ARGV[4])
if not j then
  return { refused }
end
local topic = topic_of(jobkey)
redis.call('ZREM', P .. 'reserved', jobkey)
j.state = 'R'
j.attempt = j.attempt - 1
j.token = 0
save(jobkey, j)
if redis.call('LPUSH', P .. 'ready:' .. topic, jobkey) == 1 then
  announce_ready(topic)
end
move(topic, 'S', 'R')
return { 1 }
