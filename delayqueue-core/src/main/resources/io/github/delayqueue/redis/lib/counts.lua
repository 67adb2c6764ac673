-- State counts change in memory and reach the stats hash once per field when the script ends
-- (flush_counts, called after the script's body): a batch of jobs costs one HINCRBY per field,
-- and a field that falls to 0 is left for the guard re-check to delete.
local COUNTS = {}       -- state -> topic -> delta
