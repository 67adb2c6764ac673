-- Loads a reserved job and checks the caller's fencing token.
-- Returns the job, or nil and the reply for a job that is gone (0) or not the caller's (-1).
-- @include lib/readable
-- @include lib/refusal
local function held(jobkey, token)
  local record = redis.call('HGET', KEYS[1], jobkey)
  local refused = refusal(record, token)
  if refused then
    return nil, refused
  end
  return readable(jobkey, record)
end
