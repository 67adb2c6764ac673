-- How many ready-list entries a take looks at beyond the jobs it wants: the tombstones it may
-- skip in one call (the rest wait for the next call), so that a call's work stays bounded.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/ready_parts
-- @include lib/lowest
-- @include lib/earlier
-- @include lib/read_many
-- @include lib/live_entry
local TAKE_SLACK = 1000

-- Reads (no writes) up to max READY jobs of a topic, highest priority first, FIFO within one.
-- The plan for apply_take: ended (no entries beyond those scanned), now (0: no job found) and
-- before, the head the first deadline is compared with (-1: none; nil: the delay queue's head
-- comes first).
local function plan_take(topic, max, ttr_override)
  local plan = { topic = topic, jobs = {}, keys = {}, scanned = 0, tombstones = 0, ended = false }
  local seen = {}
  local limit = max + TAKE_SLACK
  local want = math.min(limit, math.max(max, 16))
  local first = redis.call('LRANGE', P .. 'ready:' .. topic, 0, want - 1)
  local parts, levels = ready_parts(topic, first[1])
  plan.parts, plan.sentinel, plan.levels = parts, levels and first[1], levels
  -- without a sentinel the one list's first window is read already
  local window = (not levels) and first or nil
  local ended = true
  for _, part in ipairs(parts) do
    -- each list from its first entry not scanned yet, until the plan has max jobs or has looked at
    -- limit entries
    part.scanned, part.ended = 0, false
    while #plan.jobs < max and plan.scanned < limit do
      local asked = math.min(limit - plan.scanned, math.max(max - #plan.jobs, 16))
      local entries
      if window then
        entries, asked, window = window, want, nil
      else
        local from = part.from + part.scanned
        entries = redis.call('LRANGE', part.key, from, from + asked - 1)
      end
      local records = read_many(KEYS[1], entries)
      local counted = 0
      for k, jobkey in ipairs(entries) do
        counted = counted + 1
        local j = live_entry(jobkey, records[k], seen, part.letter)
        if j then
          plan.jobs[#plan.jobs + 1] = j
          plan.keys[#plan.keys + 1] = jobkey
          if #plan.jobs >= max then
            break
          end
        else
          plan.tombstones = plan.tombstones + 1
        end
      end
      plan.scanned = plan.scanned + counted
      part.scanned = part.scanned + counted
      if #entries < asked then
        -- the list ends here; nothing is left in it when every entry read was scanned
        part.ended = (counted == #entries)
        break
      end
    end
    ended = ended and part.ended
  end
  plan.ended = ended
  plan.now = 0
  if #plan.jobs > 0 then
    plan.now = now_ms()
    local shortest = math.huge
    for _, j in ipairs(plan.jobs) do
      shortest = math.min(shortest, (ttr_override > 0) and ttr_override or j.ttr)
    end
    local earliest = plan.now + shortest
    local _, d = lowest(P .. 'delayed')
    if d == nil or earliest < d then
      local _, r = lowest(P .. 'reserved')
      plan.before = earlier(d, r)
    end
  end
  return plan
end
