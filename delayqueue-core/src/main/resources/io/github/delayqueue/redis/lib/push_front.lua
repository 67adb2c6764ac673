-- Puts a job key of priority p back at the front of its ready list (after the sentinel);
-- announces the topic when its first list was empty.
-- @include lib/keys
-- @include lib/default_priority
-- @include lib/ready_key
-- @include lib/sentinel_levels
-- @include lib/announce_ready
-- @include lib/mark_priority
local function push_front(topic, jobkey, p)
  local key = P .. 'ready:' .. topic
  if p ~= DEFAULT_PRIORITY then
    redis.call('LPUSH', ready_key(topic, p), jobkey)
    if mark_priority(topic, p) then
      announce_ready(topic)
    end
    return
  end
  local first = redis.call('LRANGE', key, 0, 0)[1]
  if sentinel_levels(first) then
    redis.call('LSET', key, 0, jobkey)
    redis.call('LPUSH', key, first)
  elseif redis.call('LPUSH', key, jobkey) == 1 then
    announce_ready(topic)
  end
end
