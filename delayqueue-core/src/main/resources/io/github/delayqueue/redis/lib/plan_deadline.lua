-- Reads, before the caller writes anything, what apply_take needs to tell whether the earliest
-- deadline of a plan's jobs (Redis's time now + TTR) becomes the bucket's next timer event:
-- the delay queue's head (read by plan_take) when that comes first, as it mostly does, else
-- the reserved index's head too (plan.before: the earlier of them, -1 for neither; nil when
-- the delay queue's head comes first).
-- @include lib/keys
-- @include lib/lowest
-- @include lib/earlier
local function plan_deadline(plan, ttr_override, now)
  local earliest = nil
  for _, j in ipairs(plan.jobs) do
    local ttr = (ttr_override > 0) and ttr_override or j.ttr
    if earliest == nil or ttr < earliest then
      earliest = ttr
    end
  end
  if earliest == nil then
    return
  end
  plan.earliest = now + earliest
  local d = plan.delayed_head
  if d == nil or plan.earliest < d then
    local _, r = lowest(P .. 'reserved')
    plan.before = earlier(d, r)
  end
end
