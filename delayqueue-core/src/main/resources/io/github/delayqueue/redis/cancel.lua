-- cancel.lua: removes a job in any state. A ready-list entry stays behind as a tombstone that
-- reserve skips; a consumer holding the job is refused at finish / fail / touch.
-- KEYS[1] jobs hash, KEYS[2] guard
-- ARGV[3] job key
-- Returns {state letter the job had}, or {} when there was no such job.
-- @include lib/topic_of
-- @include lib/unlink
-- @include lib/forget
-- @include lib/stored
local jobkey = ARGV[3]
local j = stored(jobkey)
if not j then
  return {}
end
unlink(jobkey, topic_of(jobkey), j)
forget({ jobkey })
return { j.state }
