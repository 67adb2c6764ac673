-- replay.lua: DEAD jobs of a topic become READY, due now, attempts reset, oldest deaths first.
-- ARGV[3] topic, ARGV[4] max jobs, ARGV[5] one job key or '' for the oldest, ARGV[6] how many
-- replayed keys to return. Dead-list entries without a DEAD record are dropped.
-- Returns {jobs replayed, dead-list entries left, the first ARGV[6] job keys replayed}.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/decode
-- @include lib/encode
-- @include lib/readable
-- @include lib/call_many
-- @include lib/read_many
-- @include lib/gathered
-- @include lib/gather_ready
-- @include lib/write_gathered
local topic, max, named = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[6]) or 0
local dead = P .. 'dead:' .. topic
local one = ARGV[5] ~= ''
local jobkeys
if one then
  jobkeys = redis.call('ZSCORE', dead, ARGV[5]) and { ARGV[5] } or {}
else
  jobkeys = redis.call('ZRANGE', dead, 0, max - 1)
end
local records = read_many(KEYS[1], jobkeys)
local jobs = {}
for k, jobkey in ipairs(jobkeys) do
  local j = records[k] and (one and readable(jobkey, records[k]) or decode(records[k]))
  jobs[k] = (j and j.state == 'X') and j or false
end
-- writes
local now = now_ms()
local w = gathered()
local replayed = {}
for k, jobkey in ipairs(jobkeys) do
  local j = jobs[k]
  if j then
    replayed[#replayed + 1] = jobkey
    j.attempt = 0
    -- its last error stays: the mark tells the finish to delete it
    j.marked = true
    j.token = 0
    j.due = now
    j.state = 'R'
    gather_ready(w, jobkey, topic, encode(j), 'X')
  end
end
call_many('ZREM', dead, jobkeys)
write_gathered(w)
local reply = { #replayed, redis.call('ZCARD', dead) }
for k = 1, math.min(#replayed, named) do
  reply[#reply + 1] = replayed[k]
end
return reply
