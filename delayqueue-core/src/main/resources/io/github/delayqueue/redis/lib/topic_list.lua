-- The list of a topic in lists (topic -> list), created when new and its topic then appended to
-- topics, which keeps the order in which the topics came.
local function topic_list(lists, topics, topic)
  local list = lists[topic]
  if not list then
    list = {}
    lists[topic] = list
    topics[#topics + 1] = topic
  end
  return list
end
