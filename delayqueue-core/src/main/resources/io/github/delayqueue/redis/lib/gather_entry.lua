-- Gathers a ready-list entry of a topic, of priority p.
-- @include lib/default_priority
-- @include lib/topic_list
local function gather_entry(w, topic, jobkey, p)
  local list = topic_list(w.ready, w.ready_topics, topic)
  list[#list + 1] = jobkey
  if p ~= DEFAULT_PRIORITY then
    local levels = w.levels[topic]
    if not levels then
      levels = {}
      w.levels[topic] = levels
    end
    levels[#list] = p
  end
end
