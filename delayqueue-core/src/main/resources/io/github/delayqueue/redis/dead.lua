-- dead.lua: a page of a topic's DEAD jobs in the bucket, by time of death then job key.
-- ARGV[3] topic, ARGV[4] page size, ARGV[5] '1' for payloads, ARGV[6] the cursor's time of death
-- ('' from the oldest), ARGV[7] the cursor's job key.
-- Returns {DEAD jobs of the topic, then per job: job key and what find.lua answers after the
-- state (no payload: nil)}.
-- @include lib/keys
-- @include lib/num
-- @include lib/decode
-- @include lib/pick
-- @include lib/read_many
local topic, max = ARGV[3], tonumber(ARGV[4])
local dead = P .. 'dead:' .. topic
local reply = { redis.call('ZCARD', dead) }
-- whether job key a sorts after b as a sorted set orders equal scores (by bytes)
local function sorts_after(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return #a > #b
end
local entries
if ARGV[6] == '' then
  entries = redis.call('ZRANGE', dead, 0, max - 1, 'WITHSCORES')
else
  local after, after_key = tonumber(ARGV[6]), ARGV[7]
  local rank = redis.call('ZRANK', dead, after_key)
  if rank and tonumber(redis.call('ZSCORE', dead, after_key)) == after then
    entries = redis.call('ZRANGE', dead, rank + 1, rank + max, 'WITHSCORES')
  else
    -- the cursor's job left: skip the entries of its time of death that sort before it
    entries = {}
    local offset = 0
    while #entries < 2 * max do
      local window = redis.call('ZRANGEBYSCORE', dead, num(after), '+inf', 'WITHSCORES', 'LIMIT', offset, max)
      for i = 1, #window, 2 do
        local score = tonumber(window[i + 1])
        if (score > after or sorts_after(window[i], after_key)) and #entries < 2 * max then
          entries[#entries + 1] = window[i]
          entries[#entries + 1] = window[i + 1]
        end
      end
      if #window < 2 * max then
        break
      end
      offset = offset + max
    end
  end
end
local jobkeys = pick(entries, 1, 2)
local records = read_many(KEYS[1], jobkeys)
local errors = read_many(P .. 'errors', jobkeys)
for k, jobkey in ipairs(jobkeys) do
  local j = records[k] and decode(records[k])
  if j then
    local n = #reply
    reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5], reply[n + 6] = jobkey, j.attempt, j.max,
      j.ttr, j.due, j.created
    reply[n + 7], reply[n + 8], reply[n + 9], reply[n + 10], reply[n + 11] = 0, tonumber(entries[2 * k]),
      errors[k] or '', (ARGV[5] == '1') and j.payload or false, j.priority
  end
end
return reply
