-- Runs a command with a key and many arguments, in chunks that Lua's unpack can take (CHUNK is
-- even, so pairs such as ZADD's score and member stay together).
-- @include lib/chunk
local function call_many(command, key, items)
  for i = 1, #items, CHUNK do
    redis.call(command, key, unpack(items, i, math.min(#items, i + CHUNK - 1)))
  end
end
