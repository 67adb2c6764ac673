-- Writes gathered for a batch, made with one command per key by write_gathered. w.ready holds
-- each topic's entries in order, w.levels[topic] the same entries by priority.
local function gathered()
  return { records = {}, errors = {}, dead = {}, dead_topics = {}, ready = {}, ready_topics = {}, levels = {} }
end
