-- Jobs leave the queue (finished or cancelled): their records and last errors are deleted. (The
-- caller unlinks them from their indexes.) erring: the jobs that may have a last error, when
-- the caller knows them to be fewer (see the record format); nil for all of them.
-- @include lib/keys
-- @include lib/call_many
local function forget(jobkeys, erring)
  call_many('HDEL', KEYS[1], jobkeys)
  call_many('HDEL', P .. 'errors', erring or jobkeys)
end
