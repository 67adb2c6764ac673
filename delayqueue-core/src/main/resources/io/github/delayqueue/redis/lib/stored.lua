-- The job stored under a job key, or false when there is none (a record that is not in this
-- format raises its error, before anything is written).
-- @include lib/readable
local function stored(jobkey)
  local record = redis.call('HGET', KEYS[1], jobkey)
  return record and readable(jobkey, record)
end
