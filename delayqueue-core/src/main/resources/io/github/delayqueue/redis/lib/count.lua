-- Adds delta to the count of a state and topic.
-- @include lib/counts
local COUNT_FIELDS = {}  -- state -> topic -> its field, made once per call
local function count(state, topic, delta)
  local fields = COUNT_FIELDS[state]
  if not fields then
    fields = {}
    COUNT_FIELDS[state] = fields
  end
  local field = fields[topic]
  if not field then
    field = state .. ':' .. topic
    fields[topic] = field
    if COUNTS[field] == nil then
      COUNT_ORDER[#COUNT_ORDER + 1] = field
    end
  end
  COUNTS[field] = (COUNTS[field] or 0) + delta
end
