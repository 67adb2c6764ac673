-- Deletes the records and last errors of jobs the caller unlinked; erring: the jobs that may
-- have a last error (nil: all).
-- @include lib/keys
-- @include lib/call_many
local function forget(jobkeys, erring)
  call_many('HDEL', KEYS[1], jobkeys)
  call_many('HDEL', P .. 'errors', erring or jobkeys)
end
