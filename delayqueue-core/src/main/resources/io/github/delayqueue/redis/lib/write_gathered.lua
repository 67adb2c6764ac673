-- Makes the gathered writes: the records, the errors, the dead-list entries, then the ready-list
-- entries (announced as push_ready does).
-- @include lib/keys
-- @include lib/default_priority
-- @include lib/call_many
-- @include lib/push_ready
local function write_gathered(w)
  call_many('HSET', KEYS[1], w.records)
  call_many('HSET', P .. 'errors', w.errors)
  for _, topic in ipairs(w.dead_topics) do
    call_many('ZADD', P .. 'dead:' .. topic, w.dead[topic])
  end
  for _, topic in ipairs(w.ready_topics) do
    -- the entries of each priority in their order, the default first
    local lists = w.levels[topic]
    if lists[DEFAULT_PRIORITY] then
      push_ready(topic, lists[DEFAULT_PRIORITY])
    end
    for p = 9, 0, -1 do
      if p ~= DEFAULT_PRIORITY and lists[p] then
        push_ready(topic, lists[p], p)
      end
    end
  end
end
