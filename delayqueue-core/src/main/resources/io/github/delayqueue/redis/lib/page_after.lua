-- Up to max entries (member, score, ...) of a zset after a cursor (score after, member after_key;
-- after nil: from the first), by score then member as the zset orders them, reversed with rev.
-- @include lib/bytes_before
local function page_after(key, max, after, after_key, rev)
  local range = rev and 'ZREVRANGE' or 'ZRANGE'
  if not after then
    return redis.call(range, key, 0, max - 1, 'WITHSCORES')
  end
  local rank = redis.call(rev and 'ZREVRANK' or 'ZRANK', key, after_key)
  if rank and tonumber(redis.call('ZSCORE', key, after_key)) == after then
    return redis.call(range, key, rank + 1, rank + max, 'WITHSCORES')
  end
  -- the cursor's member left: skip the entries of its score that come before it (by bytes)
  local entries, offset, from = {}, 0, string.format('%.0f', after)
  while #entries < 2 * max do
    local window = rev and redis.call('ZREVRANGEBYSCORE', key, from, '-inf', 'WITHSCORES', 'LIMIT', offset, max)
      or redis.call('ZRANGEBYSCORE', key, from, '+inf', 'WITHSCORES', 'LIMIT', offset, max)
    for i = 1, #window, 2 do
      local m = window[i]
      local a, b = after_key, m
      if rev then
        a, b = m, after_key
      end
      if (tonumber(window[i + 1]) ~= after or bytes_before(a, b)) and #entries < 2 * max then
        entries[#entries + 1] = m
        entries[#entries + 1] = window[i + 1]
      end
    end
    if #window < 2 * max then
      break
    end
    offset = offset + max
  end
  return entries
end
