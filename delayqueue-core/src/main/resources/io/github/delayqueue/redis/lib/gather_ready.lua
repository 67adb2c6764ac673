-- A job in state from becomes READY with the given record: its record and ready-list entry (of
-- the priority letter after the state: 'a' to 'j', not 'f', the default's) are gathered, the
-- counts change.
-- @include lib/default_priority
-- @include lib/move
-- @include lib/gather_record
-- @include lib/gather_entry
local function gather_ready(w, jobkey, topic, record, from)
  gather_record(w, jobkey, record)
  local b = string.byte(record, 2)
  gather_entry(w, topic, jobkey, (b and b >= 97 and b <= 106 and b ~= 102) and (b - 97) or DEFAULT_PRIORITY)
  move(topic, from, 'R')
end
