-- The job stored under a job key, or nil when there is none (a record that is not in this format
-- raises its error, before anything is written).
-- @include lib/readable
local function stored(jobkey)
  local record = redis.call('HGET', KEYS[1], jobkey)
  if not record then
    return nil
  end
  return readable(jobkey, record)
end
