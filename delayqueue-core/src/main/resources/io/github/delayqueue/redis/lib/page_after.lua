-- Up to max entries (member, score, ...) of a zset after a cursor (score after, member after_key;
-- after nil: from the first), by score then member as the zset orders them, reversed with rev.
-- @include lib/rank_after
local function page_after(key, max, after, after_key, rev)
  local from = after and rank_after(key, after, after_key, rev) or 0
  return redis.call(rev and 'ZREVRANGE' or 'ZRANGE', key, from, from + max - 1, 'WITHSCORES')
end
