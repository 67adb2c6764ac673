-- Strikes job keys pushed into a ready list from a running repair's scratch hash (repair.lua): their
-- entry is listed now, whichever of the repair's windows missed it. Without a repair, one HLEN.
-- @include lib/keys
-- @include lib/call_many
local function unnote(jobkeys)
  if redis.call('HLEN', P .. 'repair') > 0 then
    call_many('HDEL', P .. 'repair', jobkeys)
  end
end
