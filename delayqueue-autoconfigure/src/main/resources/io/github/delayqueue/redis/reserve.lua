-- reserve.lua: hands up to N READY jobs of a topic to a consumer (READY -> RESERVED).
-- KEYS[1] jobs hash
-- ARGV[3] topic, ARGV[4] max jobs, ARGV[5] ttr ms for this reservation (0: each job's own ttr),
-- ARGV[6] attempts limit stored with the jobs taken (0: each job's own)
-- Returns {ready left in the list, now ms, earliest new deadline when it became the bucket's
--          next timer event else 0, then 9 fields per job (see take in lib.lua)}.
local now = now_ms()
local reply = { 0, now, 0 }
reply[1], reply[3] = take(ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), now, reply)
return reply
