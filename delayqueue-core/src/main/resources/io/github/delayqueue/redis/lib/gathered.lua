-- Writes gathered for a batch, made with one command per key by write_gathered. w.levels[topic]
-- holds a topic's ready-list entries by priority, w.ready_topics the topics in order.
local function gathered()
  return { records = {}, errors = {}, dead = {}, dead_topics = {}, ready_topics = {}, levels = {} }
end
