-- The floor designs' take: up to ARGV[1] jobs from the head of a ready list, with their records.
-- At most once (ARGV[2] empty): the records are deleted at once. At least once (ARGV[2] the
-- reservation's deadline in epoch ms): the jobs are added to the reserved set with that score
-- and their records stay until floor-finish.lua deletes them.
-- At most once, ARGV[3] is a job the caller already popped while waiting (BLPOP), or empty.
-- At least once, the caller waits with a BLMOVE into its own list KEYS[4] (a crash, or a take
-- that fails after it, leaves the job there, not lost), and every take starts with what that
-- list holds (up to ARGV[1] jobs).
-- KEYS[1] the records (HASH: topic:id -> payload), KEYS[2] the ready list,
-- KEYS[3] the reserved jobs (ZSET: topic:id, score the deadline), KEYS[4] the caller's list
-- Returns { jobs taken from the lists, topic:id 1, payload 1, ... } for those whose record exists.
local ids = {}
if ARGV[2] ~= '' then
	ids = redis.call('LPOP', KEYS[4], tonumber(ARGV[1])) or {}
elseif ARGV[3] ~= '' then
	ids[1] = ARGV[3]
end
local more = tonumber(ARGV[1]) - #ids
if more > 0 then
	local popped = redis.call('LPOP', KEYS[2], more)
	for _, id in ipairs(popped or {}) do
		ids[#ids + 1] = id
	end
end
local reply, reserved = { #ids }, {}
if #ids == 0 then
	return reply
end
local payloads = redis.call('HMGET', KEYS[1], unpack(ids))
for i, id in ipairs(ids) do
	if payloads[i] then
		reply[#reply + 1] = id
		reply[#reply + 1] = payloads[i]
		reserved[#reserved + 1] = ARGV[2]
		reserved[#reserved + 1] = id
	end
end
if ARGV[2] == '' then
	redis.call('HDEL', KEYS[1], unpack(ids))
elseif #reserved > 0 then
	redis.call('ZADD', KEYS[3], unpack(reserved))
end
return reply
