-- The bucket's keys (docs/how-it-works.md, "Redis keys" and "Job records"). KEYS[1] is the
-- bucket's jobs hash, KEYS[2] its guard (declared, never written, so that Cluster refuses the
-- script while the slot migrates); the other keys share KEYS[1]'s prefix. ARGV[1] is the
-- channel, ARGV[2] the bucket number. A script reads and checks everything before its first
-- write, and writes the state counts last (flush_counts).
local P = string.sub(KEYS[1], 1, -5)
local CHANNEL = ARGV[1]
local BUCKET = ARGV[2]
