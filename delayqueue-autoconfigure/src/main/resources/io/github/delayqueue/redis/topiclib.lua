-- topiclib.lua: helpers that the scripts on a topic's own slot (completed.lua, rate.lua) start
-- with (prepended when loaded). Their keys are the topic's, not a bucket's: lib.lua, whose
-- helpers work on a bucket, is not theirs.

-- The most values one command takes from unpack (Lua's limit is near 8,000).
local CHUNK = 1000

-- Runs a command with a key and many arguments, in chunks that Lua's unpack can take.
local function call_many(command, key, items)
  for i = 1, #items, CHUNK do
    redis.call(command, key, unpack(items, i, math.min(#items, i + CHUNK - 1)))
  end
end

-- A whole number argument, or an error naming it (raised before anything is written).
local function whole(i)
  local n = tonumber(ARGV[i])
  if not n or n < 0 or n ~= math.floor(n) then
    error('delayqueue: argument ' .. i .. ' of a topic script must be a whole number, was ' .. tostring(ARGV[i]))
  end
  return n
end

