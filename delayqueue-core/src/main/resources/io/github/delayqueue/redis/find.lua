-- find.lua: reads one job. ARGV[3] job key.
-- Returns {} for none, else {state, attempt, max attempts, ttr ms, due ms, created ms, reserved
-- until ms or 0, died at ms or 0, last error or '', payload, priority}.
-- @include lib/keys
-- @include lib/topic_of
-- @include lib/stored
-- @include lib/put_info
local jobkey = ARGV[3]
local j = stored(jobkey)
if not j then
  return {}
end
local deadline, died = 0, 0
if j.state == 'S' then
  deadline = tonumber(redis.call('ZSCORE', P .. 'reserved', jobkey) or 0)
elseif j.state == 'X' then
  died = tonumber(redis.call('ZSCORE', P .. 'dead:' .. topic_of(jobkey), jobkey) or 0)
end
local err = redis.call('HGET', P .. 'errors', jobkey) or ''
return put_info({ j.state }, j, deadline, died, err, true)
