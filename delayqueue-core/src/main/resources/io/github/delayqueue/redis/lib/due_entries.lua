-- Up to limit entries of a sorted set whose score is at most now, with their scores, and the
-- next score after them (nil: none).
-- @include lib/num
local function due_entries(key, limit, now)
  local members, scores = {}, {}
  local head = redis.call('ZRANGE', key, 0, 1, 'WITHSCORES')
  if limit <= 0 or not head[1] or tonumber(head[2]) > now then
    return members, scores, head[2] and tonumber(head[2])
  end
  if limit == 1 or not head[3] or tonumber(head[4]) > now then
    members[1], scores[1] = head[1], tonumber(head[2])
    return members, scores, head[4] and tonumber(head[4])
  end
  local found = redis.call('ZRANGEBYSCORE', key, '-inf', num(now), 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #found, 2 do
    members[#members + 1] = found[i]
    scores[#scores + 1] = tonumber(found[i + 1])
  end
  local after = redis.call('ZRANGE', key, #members, #members, 'WITHSCORES')
  return members, scores, after[2] and tonumber(after[2])
end
