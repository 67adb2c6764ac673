-- Writes gathered for a batch, made with one command per key by write_gathered. w.ready holds
-- each topic's entries in order, w.levels their priorities when one is not the default.
local function gathered()
  return { records = {}, errors = {}, dead = {}, dead_topics = {}, ready = {}, ready_topics = {}, levels = {} }
end
