-- @include lib/encode
local function save(jobkey, j)
  redis.call('HSET', KEYS[1], jobkey, encode(j))
end
