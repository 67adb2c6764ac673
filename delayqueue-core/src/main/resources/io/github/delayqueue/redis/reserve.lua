-- reserve.lua: hands up to N READY jobs of a topic to a consumer (READY -> RESERVED).
-- KEYS[1] jobs hash, KEYS[2] guard
-- ARGV[3] topic, ARGV[4] max jobs, ARGV[5] ttr ms for this reservation (0: each job's own ttr),
-- ARGV[6] attempts limit stored with the jobs taken (0: each job's own), ARGV[7] the latest
-- Redis time (ms) at which jobs may be taken, 0 for any (a rate limit's permits expire)
-- Returns {ready-list entries left, now ms (0 when no job was taken: the clock is not read),
--          earliest new deadline when it became the bucket's next timer event else 0,
--          then 9 fields per job (see lib/apply_take.lua)};
--         {-1, now ms, 0} when READY jobs were found after the latest time (none is taken).
-- @include lib/now_ms
-- @include lib/plan_take
-- @include lib/plan_deadline
-- @include lib/apply_take
local plan = plan_take(ARGV[3], tonumber(ARGV[4]))
local now = (#plan.jobs > 0) and now_ms() or 0
local not_after = tonumber(ARGV[7] or '0')
if not_after > 0 and now > not_after then
  return { -1, now, 0 }
end
plan_deadline(plan, tonumber(ARGV[5]), now)
local reply = { 0, now, 0 }
reply[1], reply[3] = apply_take(plan, tonumber(ARGV[5]), tonumber(ARGV[6]), now, reply)
return reply
