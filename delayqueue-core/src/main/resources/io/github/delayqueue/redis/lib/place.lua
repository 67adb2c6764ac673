-- Stores a job that waits for its due time: READY at once when due, else DELAYED (announced
-- when it became the bucket's head). Returns 1 when it became the head.
-- @include lib/keys
-- @include lib/num
-- @include lib/save
-- @include lib/announce_head
-- @include lib/push_ready
local function place(jobkey, topic, j, now)
  if j.due <= now then
    j.state = 'R'
    save(jobkey, j)
    push_ready(topic, { jobkey }, j.priority)
    return 0
  end
  j.state = 'D'
  save(jobkey, j)
  redis.call('ZADD', P .. 'delayed', num(j.due), jobkey)
  if redis.call('ZRANGE', P .. 'delayed', 0, 0)[1] ~= jobkey then
    return 0
  end
  announce_head(j.due)
  return 1
end
