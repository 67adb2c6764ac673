-- A job in state from becomes READY (its decoded record j is written again).
-- @include lib/encode
-- @include lib/gather_ready_record
local function gather_ready(w, jobkey, topic, j, from)
  j.state = 'R'
  gather_ready_record(w, jobkey, topic, encode(j), from)
end
