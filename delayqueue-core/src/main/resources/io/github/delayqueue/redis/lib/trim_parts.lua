-- Removes the entries a plan_take scanned from the topic's ready lists, and rewrites the
-- sentinel of the first list (list) to name the priorities whose lists still have entries
-- (none: it is removed). part.from is 1 for the first list, after its sentinel: the sentinel
-- goes with the entries trimmed and is pushed again.
-- @include lib/default_priority
-- @include lib/sentinel_text
local function trim_parts(plan, list)
  local set = {}
  local default_part
  for _, part in ipairs(plan.parts) do
    if part.level == DEFAULT_PRIORITY then
      default_part = part
    else
      if part.scanned > 0 then
        redis.call('LTRIM', part.key, part.scanned, -1)
      end
      if not part.ended then
        -- a scan that stopped where the list ends did not see that it ended
        part.left = redis.call('LLEN', part.key)
        part.ended = part.left == 0
      end
      if not part.ended then
        set[part.level] = true
      end
    end
  end
  local text = sentinel_text(set)
  if default_part.scanned > 0 then
    redis.call('LTRIM', list, default_part.from + default_part.scanned, -1)
    if text then
      redis.call('LPUSH', list, text)
    end
  elseif not text then
    redis.call('LPOP', list)
  elseif text ~= plan.sentinel then
    redis.call('LSET', list, 0, text)
  end
  if not text then
    -- (the entries left in the first list start at its head now)
    default_part.from = 0
  end
end
