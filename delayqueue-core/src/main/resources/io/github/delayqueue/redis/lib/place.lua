-- Stores a job that waits for its due time: READY at once when due, else DELAYED.
-- Returns 1 when it became the bucket's head.
-- @include lib/encode
-- @include lib/push_ready
-- @include lib/push_delayed
local function place(jobkey, topic, j, now)
  j.state = (j.due <= now) and 'R' or 'D'
  redis.call('HSET', KEYS[1], jobkey, encode(j))
  if j.state == 'R' then
    push_ready(topic, { jobkey }, j.priority)
    return 0
  end
  return push_delayed(jobkey, j.due)
end
