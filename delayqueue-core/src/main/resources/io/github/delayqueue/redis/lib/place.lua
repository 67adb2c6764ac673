-- Stores a job that waits for its due time: READY at once when due, else DELAYED.
-- Returns 1 when it became the bucket's head.
-- @include lib/save
-- @include lib/push_ready
-- @include lib/push_delayed
local function place(jobkey, topic, j, now)
  if j.due <= now then
    j.state = 'R'
    save(jobkey, j)
    push_ready(topic, { jobkey }, j.priority)
    return 0
  end
  j.state = 'D'
  save(jobkey, j)
  return push_delayed(jobkey, j.due)
end
