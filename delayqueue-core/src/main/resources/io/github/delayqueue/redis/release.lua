-- release.lua: a consumer gives back reservations it never started (shutdown, a request gone): each
-- job is READY again at once, at the front of its priority's list, in the order given (the first
-- given is taken first again), and the attempt it did not make is not counted.
-- KEYS[1] jobs hash, KEYS[2] guard
-- ARGV[3], ARGV[4], ...: a job key and its token for each job
-- Returns {released}: how many were released (the others are gone or held under another token).
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
