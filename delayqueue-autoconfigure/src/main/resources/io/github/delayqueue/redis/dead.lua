-- dead.lua: reads the DEAD jobs of a topic in one bucket, the oldest deaths first.
-- KEYS[1] jobs hash
-- ARGV[3] topic, ARGV[4] how many to read, ARGV[5] '1' to include payloads
-- Returns {dead jobs of the topic in the bucket, then for each job read: job key, died at ms,
--          attempt, max attempts, ttr ms, due ms, created ms, last error or '', payload or ''}.
local topic, max = ARGV[3], tonumber(ARGV[4])
local dead = P .. 'dead:' .. topic
local reply = { redis.call('ZCARD', dead) }
local entries = redis.call('ZRANGE', dead, 0, max - 1, 'WITHSCORES')
for i = 1, #entries, 2 do
  local jobkey = entries[i]
  local record = redis.call('HGET', KEYS[1], jobkey)
  local j = record and decode(record)
  if j then
    reply[#reply + 1] = jobkey
    reply[#reply + 1] = tonumber(entries[i + 1])
    reply[#reply + 1] = j.attempt
    reply[#reply + 1] = j.max
    reply[#reply + 1] = j.ttr
    reply[#reply + 1] = j.due
    reply[#reply + 1] = j.created
    reply[#reply + 1] = redis.call('HGET', P .. 'errors', jobkey) or ''
    reply[#reply + 1] = (ARGV[5] == '1') and j.payload or ''
  end
end
return reply
