-- finish.lua: a consumer is done with jobs of this bucket: they are removed (a job whose token
-- is stale is left alone). With ARGV[3] > 0, also reserves up to that many READY jobs of
-- topic ARGV[5] from this bucket, as reserve.lua does: a consumer that wants more work saves
-- a round trip.
-- KEYS[1] jobs hash
-- ARGV[3] next jobs wanted (0: none), ARGV[4] their ttr ms (0: each job's own), ARGV[5] their
-- topic, ARGV[6] their attempts limit (0: each job's own), then per job to finish: job key, token.
-- Returns per job to finish: 1 finished, 0 no such job, -1 the token is not the job's current
-- reservation; then, when next jobs were wanted: ready left, now ms, announced deadline or 0,
-- 9 fields per job (see take in lib.lua).
local reply = {}
local done, seen = {}, {}
for i = 7, #ARGV, 2 do
  local jobkey = ARGV[i]
  local record, refusal = nil, 0
  if not seen[jobkey] then
    record, refusal = holds(jobkey, ARGV[i + 1])
  end
  if record then
    seen[jobkey] = true
    -- held jobs are RESERVED: removing them from the reserved index unlinks them
    count('S', topic_of(jobkey), -1)
    done[#done + 1] = jobkey
    reply[#reply + 1] = 1
  else
    reply[#reply + 1] = refusal
  end
end
if #done > 0 then
  call_many('ZREM', P .. 'reserved', done)
  call_many('HDEL', KEYS[1], done)
  call_many('HDEL', P .. 'errors', done)
end
local wanted = tonumber(ARGV[3])
if wanted > 0 then
  local now = now_ms()
  local n = #reply
  reply[n + 1], reply[n + 2], reply[n + 3] = 0, now, 0
  reply[n + 1], reply[n + 3] = take(ARGV[5], wanted, tonumber(ARGV[4]), tonumber(ARGV[6]), now, reply)
end
return reply
