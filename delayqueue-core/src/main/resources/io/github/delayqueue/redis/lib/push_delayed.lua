-- Puts a job key into the delay queue; announces it when it became the earliest. Returns 1 then.
-- @include lib/keys
-- @include lib/num
-- @include lib/announce_head
local function push_delayed(jobkey, due)
  redis.call('ZADD', P .. 'delayed', num(due), jobkey)
  if redis.call('ZRANGE', P .. 'delayed', 0, 0)[1] == jobkey then
    announce_head(due)
    return 1
  end
  return 0
end
