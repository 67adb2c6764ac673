-- Appends job keys of priority p (nil: the default) to a topic's ready list and announces a list
-- that was empty, or, when UNANNOUNCED is a table (promote.lua), notes topic -> its length there.
-- @include lib/keys
-- @include lib/chunk
-- @include lib/default_priority
-- @include lib/ready_key
-- @include lib/call_many
-- @include lib/announce_ready
-- @include lib/mark_priority
-- @include lib/unnote
local UNANNOUNCED = nil
local function push_ready(topic, jobkeys, p)
  local was_empty, length = false, 0
  unnote(jobkeys)
  if p and p ~= DEFAULT_PRIORITY then
    call_many('RPUSH', ready_key(topic, p), jobkeys)
    was_empty = mark_priority(topic, p)
    length = #jobkeys
  else
    local key = P .. 'ready:' .. topic
    for i = 1, #jobkeys, CHUNK do
      local last = math.min(#jobkeys, i + CHUNK - 1)
      length = redis.call('RPUSH', key, unpack(jobkeys, i, last))
      was_empty = was_empty or (i == 1 and length == last)
    end
  end
  if was_empty then
    if UNANNOUNCED then
      UNANNOUNCED[topic] = length
    else
      announce_ready(topic)
    end
  elseif UNANNOUNCED and UNANNOUNCED[topic] then
    UNANNOUNCED[topic] = UNANNOUNCED[topic] + #jobkeys
  end
end
