-- The floor design's take: removes and returns the record of a job popped from a ready list.
-- KEYS[1] the records (HASH: topic:id -> payload)
-- ARGV[1] topic:id
-- Returns the payload, or nil when the record is gone.
local payload = redis.call('HGET', KEYS[1], ARGV[1])
if payload then
	redis.call('HDEL', KEYS[1], ARGV[1])
end
return payload
