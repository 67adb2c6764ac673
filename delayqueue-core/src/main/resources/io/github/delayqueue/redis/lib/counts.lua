-- State count changes, written once per field by flush_counts after the script's body.
local COUNTS = {}       -- state -> topic -> delta
local COUNT_ORDER = {}  -- { state, topic } in the order of their first change
