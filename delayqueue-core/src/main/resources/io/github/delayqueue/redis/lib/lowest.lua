-- The member of a sorted set with the lowest score, and that score (nil when the set is empty).
local function lowest(key)
  local head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return head[1], head[2] and tonumber(head[2])
end
