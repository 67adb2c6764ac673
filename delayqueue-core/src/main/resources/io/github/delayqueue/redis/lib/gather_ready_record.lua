-- A job in state from becomes READY with the given record: its record and ready-list entry are
-- gathered, the counts change.
-- @include lib/priority_of
-- @include lib/move
-- @include lib/gather_record
-- @include lib/gather_entry
local function gather_ready_record(w, jobkey, topic, record, from)
  gather_record(w, jobkey, record)
  gather_entry(w, topic, jobkey, priority_of(record))
  move(topic, from, 'R')
end
