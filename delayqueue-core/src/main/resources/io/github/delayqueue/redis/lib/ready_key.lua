-- The ready list of a topic's jobs of priority p.
-- @include lib/keys
-- @include lib/default_priority
local function ready_key(topic, p)
  if p == DEFAULT_PRIORITY then
    return P .. 'ready:' .. topic
  end
  return P .. 'ready:' .. topic .. ':' .. p
end
