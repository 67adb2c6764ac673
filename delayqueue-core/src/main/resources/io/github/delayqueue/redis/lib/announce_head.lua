-- Tells the timers that the bucket's next event is at time at (ms) (the "h" event).
-- @include lib/keys
-- @include lib/num
local function announce_head(at)
  redis.call('PUBLISH', CHANNEL, 'h ' .. BUCKET .. ' ' .. num(at))
end
