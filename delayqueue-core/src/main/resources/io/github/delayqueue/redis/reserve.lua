-- reserve.lua: takes up to N READY jobs of a topic (READY -> RESERVED).
-- ARGV[3] topic, ARGV[4] max jobs, ARGV[5] ttr ms (0: each job's own), ARGV[6] attempts limit
-- (0: each job's own), ARGV[7] latest Redis time ms to take at (0: any), ARGV[8] this instance's
-- number (lib/token).
-- Returns {ready entries left, now ms or 0, announced deadline or 0, 9 values per job
-- (lib/apply_take)}, or {-1, now ms, 0} when too late.
-- @include lib/plan_take
-- @include lib/apply_take
local plan = plan_take(ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]))
local now = plan.now
local not_after = tonumber(ARGV[7])
if not_after > 0 and now > not_after then
  return { -1, now, 0 }
end
local reply = { 0, now, 0 }
reply[1], reply[3] = apply_take(plan, tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[8]), now, reply)
return reply
