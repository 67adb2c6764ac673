-- Adds delta to the count of a state and topic.
-- @include lib/counts
local function count(state, topic, delta)
  local field = state .. ':' .. topic
  if COUNTS[field] == nil then
    COUNT_ORDER[#COUNT_ORDER + 1] = field
  end
  COUNTS[field] = (COUNTS[field] or 0) + delta
end
