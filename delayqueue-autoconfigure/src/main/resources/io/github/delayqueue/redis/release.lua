-- release.lua: a consumer gives back a reservation it never started (shutdown): the job is READY
-- again at the front of its priority's list, at once, and the attempt it did not make is not counted.
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
push_front(topic, jobkey, j.priority)
move(topic, 'S', 'R')
return { 1 }
