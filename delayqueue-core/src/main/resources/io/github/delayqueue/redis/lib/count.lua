-- Adds delta to the count of a state and topic (the field name is made once, at flush_counts).
-- @include lib/counts
local function count(state, topic, delta)
  local topics = COUNTS[state]
  if topics == nil then
    topics = {}
    COUNTS[state] = topics
  end
  local current = topics[topic]
  if current == nil then
    COUNT_ORDER[#COUNT_ORDER + 1] = { state, topic }
    current = 0
  end
  topics[topic] = current + delta
end
