-- How many ready-list entries a take looks at beyond the jobs it wants: the tombstones it may
-- skip in one call (the rest wait for the next call), so that a call's work stays bounded.
-- @include lib/keys
-- @include lib/ready_parts
-- @include lib/lowest
-- @include lib/scan_part
local TAKE_SLACK = 1000


-- Reads (no writes) up to max READY jobs of a topic, highest priority first and FIFO within
-- one, looking at no more than max + TAKE_SLACK entries. Returns the plan for apply_take;
-- plan.ended tells that the lists have no entries beyond those scanned.
local function plan_take(topic, max)
  local plan = { topic = topic, jobs = {}, keys = {}, scanned = 0, tombstones = 0, ended = false }
  local seen = {}
  local limit = max + TAKE_SLACK
  local want = math.min(limit, math.max(max, 16))
  local first = redis.call('LRANGE', P .. 'ready:' .. topic, 0, want - 1)
  local parts, levels = ready_parts(topic, first[1])
  plan.parts, plan.sentinel, plan.levels = parts, levels and first[1], levels
  local ended = true
  for _, part in ipairs(parts) do
    if #plan.jobs < max and plan.scanned < limit then
      if levels then
        scan_part(plan, part, max, limit, seen)
      else
        scan_part(plan, part, max, limit, seen, first, want)
      end
      ended = ended and part.ended
    else
      part.scanned, part.tombstones, part.ended = 0, 0, false
      ended = false
    end
  end
  plan.ended = ended
  if #plan.jobs > 0 then
    local _, d = lowest(P .. 'delayed')
    plan.delayed_head = d
  end
  return plan
end
