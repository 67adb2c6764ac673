-- reserve.lua: hands up to N READY jobs of a topic to a consumer (READY -> RESERVED).
-- Entries whose record is gone or not READY (cancelled, replaced, already taken) are skipped and dropped.
-- KEYS[1] jobs hash
-- ARGV[3] topic, ARGV[4] max jobs, ARGV[5] ttr ms for this reservation (0: each job's own ttr)
-- Returns {ready left in the list, now ms, earliest new deadline when it became the bucket's
--          next timer event (announced as a head, so the timer wakes for it) else 0,
--          then per job: id, payload, attempt, max attempts, due ms, created ms, token, deadline ms, ttr ms}.
local topic, max, ttr_override = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local list = P .. 'ready:' .. topic
local now = now_ms()
local reply = { 0, now, 0 }
local before = next_due()
local earliest = nil
local taken = 0
local prefix_len = #topic + 2
while taken < max do
  local jobkeys = redis.call('LPOP', list, max - taken)
  if not jobkeys then
    break
  end
  for _, jobkey in ipairs(jobkeys) do
    local record = redis.call('HGET', KEYS[1], jobkey)
    if record then
      local j = decode(record)
      if j.state == 'R' then
        local ttr = (ttr_override > 0) and ttr_override or j.ttr
        j.state = 'S'
        j.attempt = j.attempt + 1
        j.token = redis.call('INCR', P .. 'seq')
        save(jobkey, j)
        redis.call('ZADD', P .. 'reserved', num(now + ttr), jobkey)
        if earliest == nil or now + ttr < earliest then
          earliest = now + ttr
        end
        move(topic, 'R', 'S')
        taken = taken + 1
        local n = #reply
        reply[n + 1] = string.sub(jobkey, prefix_len)
        reply[n + 2] = j.payload
        reply[n + 3] = j.attempt
        reply[n + 4] = j.max
        reply[n + 5] = j.due
        reply[n + 6] = j.created
        reply[n + 7] = j.token
        reply[n + 8] = now + ttr
        reply[n + 9] = ttr
      end
    end
  end
end
reply[1] = redis.call('LLEN', list)
if earliest ~= nil and (before < 0 or earliest < before) then
  redis.call('PUBLISH', CHANNEL, 'h ' .. BUCKET .. ' ' .. num(earliest))
  reply[3] = earliest
end
return reply
