-- Gathers a ready-list entry of a topic, of priority p.
-- @include lib/topic_list
local function gather_entry(w, topic, jobkey, p)
  local lists = topic_list(w.levels, w.ready_topics, topic)
  lists[p] = lists[p] or {}
  lists[p][#lists[p] + 1] = jobkey
end
