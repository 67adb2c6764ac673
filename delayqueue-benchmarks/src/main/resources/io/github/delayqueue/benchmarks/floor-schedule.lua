-- The floor design's schedule: stores a job's record and its due time.
-- KEYS[1] the due times (ZSET: member topic:id, score due time in epoch ms)
-- KEYS[2] the records (HASH: topic:id -> payload)
-- ARGV[1] topic:id, ARGV[2] due time in epoch ms, ARGV[3] payload
-- Returns 1. Nothing to check: scheduling an id again replaces its record and due time.
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
