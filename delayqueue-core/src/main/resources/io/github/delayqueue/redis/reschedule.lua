-- reschedule.lua: moves a DELAYED or READY job to a new due time.
-- ARGV[3] job key, ARGV[4] 'd' (ARGV[5] delay ms) or 'a' (ARGV[5] absolute ms).
-- Returns {1, new state, due ms, 1 if new head}, {0} for no such job, or {-1, state}.
-- @include lib/now_ms
-- @include lib/topic_of
-- @include lib/count
-- @include lib/place
-- @include lib/unlink
-- @include lib/stored
local jobkey = ARGV[3]
local j = stored(jobkey)
if not j then
  return { 0 }
end
if j.state ~= 'D' and j.state ~= 'R' then
  return { -1, j.state }
end
local topic = topic_of(jobkey)
local now = now_ms()
local due = tonumber(ARGV[5])
if ARGV[4] == 'd' then
  due = now + due
end
unlink(jobkey, topic, j)
j.due = due
local head = place(jobkey, topic, j, now)
count(j.state, topic, 1)
return { 1, j.state, due, head }
