-- Gathers a ready-list entry of a topic, of priority p.
-- @include lib/topic_list
local function gather_entry(w, topic, jobkey, p)
  local list = topic_list(w.ready, w.ready_topics, topic)
  list[#list + 1] = jobkey
  local lists = w.levels[topic] or {}
  w.levels[topic] = lists
  lists[p] = lists[p] or {}
  lists[p][#lists[p] + 1] = jobkey
end
