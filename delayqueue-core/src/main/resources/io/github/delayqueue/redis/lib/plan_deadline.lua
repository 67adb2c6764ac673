-- Reads, before any write, the heads apply_take compares the plan's earliest deadline with
-- (plan.before: the earlier head, -1 for none; nil when the delay queue's head comes first).
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
