-- A RESERVED job becomes DEAD at now with error err (the caller removes its reserved entry).
-- @include lib/num
-- @include lib/encode
-- @include lib/move
-- @include lib/topic_list
-- @include lib/gather_record
local function gather_dead(w, jobkey, topic, j, now, err)
  j.state = 'X'
  gather_record(w, jobkey, encode(j))
  local errors = w.errors
  errors[#errors + 1] = jobkey
  errors[#errors + 1] = err
  local list = topic_list(w.dead, w.dead_topics, topic)
  list[#list + 1] = num(now)
  list[#list + 1] = jobkey
  move(topic, 'S', 'X')
end
