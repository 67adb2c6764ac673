-- cancel.lua: removes a job in any state; a ready-list entry stays as a tombstone.
-- ARGV[3] job key. Returns {the state letter it had}, or {} for no such job.
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
