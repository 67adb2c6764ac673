-- stats.lua: the figures of one bucket.
-- KEYS[1] jobs hash
-- Returns {now ms, next due ms (-1: none), earliest due of a DELAYED job (-1: none),
--          "<state>:<topic>", count, ...} with state letters D, R, S, X.
local reply = { now_ms(), next_due() }
local first = redis.call('ZRANGE', P .. 'delayed', 0, 0, 'WITHSCORES')[2]
reply[3] = tonumber(first or -1)
local stats = redis.call('HGETALL', P .. 'stats')
for i = 1, #stats do
  reply[#reply + 1] = stats[i]
end
return reply
