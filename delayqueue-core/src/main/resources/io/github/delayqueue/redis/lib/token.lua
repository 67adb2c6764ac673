-- A reservation's fencing token: 10^15 + (seq mod 8 * 10^11) * 10^4 + holder, where seq is the
-- bucket's counter and holder the reserving instance's number (1..9999; 0 unknown). Below 9 * 10^15
-- < 2^53, exact in Lua and Java; unique among a bucket's last 8 * 10^11 reservations.
local function token(seq, holder)
  return 1e15 + (seq % 8e11) * 1e4 + holder
end
