-- The floor design's mover: moves up to ARGV[2] due jobs to the ready lists of their topics.
-- KEYS[1] the due times (ZSET: member topic:id, score due time in epoch ms)
-- KEYS[2] the prefix of the ready lists (LIST per topic: topic:id, oldest first)
-- ARGV[1] now in epoch ms, ARGV[2] the most jobs to move
-- Returns { jobs moved, the earliest due time still in KEYS[1] or -1 when it is empty }.
-- The ready lists are named from the members (topic before the first ':'), not passed as keys:
-- the floor runs on one Redis, not on a cluster.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then
	local byTopic = {}
	for _, member in ipairs(due) do
		local topic = string.match(member, '^([^:]*):')
		byTopic[topic] = byTopic[topic] or {}
		table.insert(byTopic[topic], member)
	end
	for topic, members in pairs(byTopic) do
		redis.call('RPUSH', KEYS[2] .. topic, unpack(members))
	end
	redis.call('ZREM', KEYS[1], unpack(due))
end
local next = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { #due, next[2] and tonumber(next[2]) or -1 }
