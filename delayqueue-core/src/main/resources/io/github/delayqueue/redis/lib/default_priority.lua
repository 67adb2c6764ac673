-- Priorities: 0 (lowest) to 9 (highest); DEFAULT_PRIORITY has no letter in a record and its
-- jobs use the topic's first ready list.
local DEFAULT_PRIORITY = 5
