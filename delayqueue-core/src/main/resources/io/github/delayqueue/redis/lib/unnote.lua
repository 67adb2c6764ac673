-- Strikes job keys pushed into a ready list from a running repair's scratch hash (repair.lua): their
-- entry is listed now, whichever of the repair's windows missed it. Without a repair, one EXISTS.
-- @include lib/keys
-- @include lib/call_many
local function unnote(jobkeys)
  if redis.call('EXISTS', P .. 'repair') == 1 then
    call_many('HDEL', P .. 'repair', jobkeys)
  end
end
