-- The at-least-once floor design's acknowledgement: forgets finished jobs.
-- KEYS[1] the records (HASH: topic:id -> payload), KEYS[2] the reserved jobs (ZSET)
-- ARGV the topic:id of each finished job
-- Returns 1. A job whose reservation ran out and was taken again is deleted all the same: the
-- floor has no fencing token.
redis.call('ZREM', KEYS[2], unpack(ARGV))
redis.call('HDEL', KEYS[1], unpack(ARGV))
return 1
