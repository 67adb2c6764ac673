-- replay.lua: gives DEAD jobs of a topic another life: READY, due now, attempts reset to zero,
-- the oldest deaths first. The last error stays readable until the job fails again or finishes.
-- KEYS[1] jobs hash
-- ARGV[3] topic, ARGV[4] max jobs, ARGV[5] one job key to replay, or '' for the oldest ones
-- Returns {number of jobs replayed}.
local topic, max = ARGV[3], tonumber(ARGV[4])
local dead = P .. 'dead:' .. topic
local one = ARGV[5] ~= ''
local jobkeys
if one then
  jobkeys = redis.call('ZSCORE', dead, ARGV[5]) and { ARGV[5] } or {}
else
  jobkeys = redis.call('ZRANGE', dead, 0, max - 1)
end
local now = now_ms()
local replayed = {}
for _, jobkey in ipairs(jobkeys) do
  local record = redis.call('HGET', KEYS[1], jobkey)
  -- the one job asked for: an unreadable record refuses the call before anything is written
  local j = record and (one and readable(jobkey, record) or decode(record))
  redis.call('ZREM', dead, jobkey)
  if j and j.state == 'X' then
    j.state = 'R'
    j.attempt = 0
    j.token = 0
    j.due = now
    save(jobkey, j)
    move(topic, 'X', 'R')
    replayed[#replayed + 1] = jobkey
  end
end
if #replayed > 0 then
  push_ready(topic, replayed)
end
return { #replayed }
