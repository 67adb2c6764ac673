-- (The field name is made once per state and topic, when it is written: a batch counts every
-- job, and a concatenation per job would cost more than the rest of count.)
-- @include lib/counts
-- @include lib/count_order
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
