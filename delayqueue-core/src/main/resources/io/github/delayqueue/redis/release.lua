-- release.lua: gives reservations back: READY at the front of their list, in the order given,
-- the attempt not counted. ARGV[3..] job key and token per job.
-- Returns {released} (the others are gone or held under another token).
-- @include lib/keys
-- @include lib/save
-- @include lib/topic_of
-- @include lib/move
-- @include lib/push_front
-- @include lib/held
local given, seen = {}, {}
for i = 3, #ARGV, 2 do
  local j = not seen[ARGV[i]] and held(ARGV[i], ARGV[i + 1])
  if j then
    seen[ARGV[i]] = true
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
  save(jobkey, j)
  push_front(topic, jobkey, j.priority)
  move(topic, 'S', 'R')
end
return { #given }
