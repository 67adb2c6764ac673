-- State count changes ("<state>:<topic>" -> delta), written once per field by flush_counts.
local COUNTS = {}
local COUNT_ORDER = {}  -- the fields in the order of their first change
