-- Creates a job of state 'R' or 'D' with its record unless its key exists (HSETNX, the first
-- write): READY into its ready list (priority p, nil: the default), DELAYED into the delay queue.
-- Returns 1 when created (else 0), and 1 when it became the bucket's head (else 0).
-- @include lib/count
-- @include lib/push_ready
-- @include lib/push_delayed
local function create_job(jobkey, topic, state, record, due, p)
  if redis.call('HSETNX', KEYS[1], jobkey, record) == 0 then
    return 0, 0
  end
  count(state, topic, 1)
  if state == 'R' then
    push_ready(topic, { jobkey }, p)
    return 1, 0
  end
  return 1, push_delayed(jobkey, due)
end
