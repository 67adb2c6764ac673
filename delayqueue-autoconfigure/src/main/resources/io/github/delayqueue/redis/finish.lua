-- finish.lua: a consumer is done with a job: it is removed. Refused for a stale token.
-- KEYS[1] jobs hash
-- ARGV[3] job key, ARGV[4] token
-- Returns {1} finished, {0} no such job, {-1} the token is not the job's current reservation.
local jobkey = ARGV[3]
local j, refusal = held(jobkey, ARGV[4])
if not j then
  return { refusal }
end
unlink(jobkey, topic_of(jobkey), j)
redis.call('HDEL', KEYS[1], jobkey)
redis.call('HDEL', P .. 'errors', jobkey)
return { 1 }
