-- Writes that a script gathers while it works out a batch of jobs, to make them at the end with
-- one command per key (write_gathered): job records, last errors, and the entries of dead lists
-- and of ready lists per topic. w.ready_topics lists the topics whose ready lists get entries,
-- w.ready their entries in order (all priorities), w.levels the priority of each entry of a
-- topic that has one other than the default (topic -> position -> priority; nil for a topic
-- whose entries all have the default).
local function gathered()
  return { records = {}, errors = {}, dead = {}, dead_topics = {}, ready = {}, ready_topics = {}, levels = {} }
end
