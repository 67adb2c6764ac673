-- Tells consumers that a topic's ready list has jobs (the "r" event).
-- @include lib/keys
local function announce_ready(topic)
  redis.call('PUBLISH', CHANNEL, 'r ' .. BUCKET .. ' ' .. topic)
end
