-- Scans one ready list of a plan_take (part: one of ready_parts, its scanned, tombstones and
-- ended set to 0, 0, false) from its first entry not scanned yet, adding its jobs to the plan
-- until the plan has max jobs or has looked at limit entries. first, when given, is the list's
-- first window already read (want entries asked).
-- @include lib/read_many
-- @include lib/live_entry
local function scan_part(plan, part, max, limit, seen, first, first_want)
  while #plan.jobs < max and plan.scanned < limit do
    local want = math.min(limit - plan.scanned, math.max(max - #plan.jobs, 16))
    local entries
    if first then
      entries, want, first = first, first_want, nil
    else
      local from = part.from + part.scanned
      entries = redis.call('LRANGE', part.key, from, from + want - 1)
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
        part.tombstones = part.tombstones + 1
      end
    end
    plan.scanned = plan.scanned + counted
    part.scanned = part.scanned + counted
    if #entries < want then
      -- the list ends here; nothing is left in it when every entry read was scanned
      part.ended = (counted == #entries)
      break
    end
  end
  plan.tombstones = plan.tombstones + part.tombstones
end
