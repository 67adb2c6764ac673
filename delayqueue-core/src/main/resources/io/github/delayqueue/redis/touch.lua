-- touch.lua: extends a reservation to now + ttr. ARGV[3] job key, ARGV[4] token, ARGV[5] ttr ms.
-- Returns {1, new deadline ms}, or {0 no such job | -1 stale token, 0}.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/num
-- @include lib/held
local jobkey = ARGV[3]
local j, refused = held(jobkey, ARGV[4])
if not j then
  return { refused, 0 }
end
local deadline = now_ms() + tonumber(ARGV[5])
redis.call('ZADD', P .. 'reserved', num(deadline), jobkey)
return { 1, deadline }
