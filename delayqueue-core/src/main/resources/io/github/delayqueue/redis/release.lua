-- release.lua: gives reservations back: READY at the front of their list, in the order given,
-- the attempt not counted. ARGV[3..] job key and token per job.
-- Returns {released} (the others are gone or held under another token).
-- @include lib/keys
-- @include lib/encode
-- @include lib/topic_of
-- @include lib/move
-- @include lib/default_priority
-- @include lib/ready_key
-- @include lib/sentinel_levels
-- @include lib/announce_ready
-- @include lib/mark_priority
-- @include lib/held
-- @include lib/unnote
local given, seen, listed = {}, {}, {}
for i = 3, #ARGV, 2 do
  local j = not seen[ARGV[i]] and held(ARGV[i], ARGV[i + 1])
  if j then
    seen[ARGV[i]] = true
    listed[#listed + 1] = ARGV[i]
    given[#given + 1] = { ARGV[i], j }
  end
end
-- each goes to the front of its list: the last first keeps their order
for i = #given, 1, -1 do
  local jobkey, j = given[i][1], given[i][2]
  local topic = topic_of(jobkey)
  redis.call('ZREM', P .. 'reserved', jobkey)
  j.state = 'R'
  j.attempt = j.attempt - 1
  j.token = 0
  redis.call('HSET', KEYS[1], jobkey, encode(j))
  -- to the front of its ready list (after the sentinel), announced when the first list was empty
  local key = P .. 'ready:' .. topic
  if j.priority ~= DEFAULT_PRIORITY then
    redis.call('LPUSH', ready_key(topic, j.priority), jobkey)
    if mark_priority(topic, j.priority) then
      announce_ready(topic)
    end
  else
    local first = redis.call('LRANGE', key, 0, 0)[1]
    if sentinel_levels(first) then
      redis.call('LSET', key, 0, jobkey)
      redis.call('LPUSH', key, first)
    elseif redis.call('LPUSH', key, jobkey) == 1 then
      announce_ready(topic)
    end
  end
  move(topic, 'S', 'R')
end
unnote(listed)
return { #given }
