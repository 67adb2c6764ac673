-- The rank (in ZRANGE order, or ZREVRANGE order with rev) of a zset's first entry after a cursor
-- (score after, member after_key), whether or not the cursor's member is still there: a
-- bisection within the cursor's score, O(log) whatever the entries of that score.
-- @include lib/bytes_before
local function rank_after(key, after, after_key, rev)
  local score = string.format('%.0f', after)
  local lo, hi
  if rev then
    lo, hi = redis.call('ZCOUNT', key, '(' .. score, '+inf'), redis.call('ZCOUNT', key, score, '+inf')
  else
    lo, hi = redis.call('ZCOUNT', key, '-inf', '(' .. score), redis.call('ZCOUNT', key, '-inf', score)
  end
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = redis.call(rev and 'ZREVRANGE' or 'ZRANGE', key, mid, mid)[1]
    local past
    if rev then
      past = bytes_before(member, after_key)
    else
      past = bytes_before(after_key, member)
    end
    if past then
      hi = mid
    else
      lo = mid + 1
    end
  end
  return lo
end
