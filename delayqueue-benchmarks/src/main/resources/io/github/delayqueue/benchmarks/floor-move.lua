-- The floor designs' mover: moves up to ARGV[2] due jobs to the ready lists of their topics,
-- and (ARGV[3] = '1', at least once) up to as many reservations whose deadline passed.
-- KEYS[1] the due times (ZSET: member topic:id, score due time in epoch ms)
-- KEYS[2] the prefix of the ready lists (LIST per topic: topic:id, oldest first)
-- KEYS[3] the reserved jobs (ZSET: member topic:id, score the deadline in epoch ms)
-- ARGV[1] now in epoch ms, ARGV[2] the most jobs to move, ARGV[3] '1' to re-queue expired
-- reservations
-- Returns { jobs moved, the earliest due time or deadline still ahead, or -1 when none is }.
-- The ready lists are named from the members (topic before the first ':'), not passed as keys:
-- the floor runs on one Redis, not on a cluster.
local function move(key)
	local due = redis.call('ZRANGEBYSCORE', key, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
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
		redis.call('ZREM', key, unpack(due))
	end
	local next = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
	return #due, next[2] and tonumber(next[2]) or -1
end
local moved, next = move(KEYS[1])
if ARGV[3] == '1' then
	local expired, deadline = move(KEYS[3])
	moved = moved + expired
	if deadline >= 0 and (next < 0 or deadline < next) then
		next = deadline
	end
end
return { moved, next }
