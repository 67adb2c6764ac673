-- Removes a job from the index of its state; a ready-list entry stays as a tombstone.
-- @include lib/keys
-- @include lib/count
local function unlink(jobkey, topic, j)
  if j.state == 'D' then
    redis.call('ZREM', P .. 'delayed', jobkey)
  elseif j.state == 'S' then
    redis.call('ZREM', P .. 'reserved', jobkey)
  elseif j.state == 'X' then
    redis.call('ZREM', P .. 'dead:' .. topic, jobkey)
  elseif j.state == 'R' then
    count('T', topic, 1)
  end
  count(j.state, topic, -1)
end
