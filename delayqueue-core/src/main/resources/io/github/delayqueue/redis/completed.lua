-- completed.lua: the finished jobs a topic keeps (its retention), in two keys of the topic's
-- own slot "{<namespace>/done/<topic>}", apart from the buckets.
-- KEYS[1] the records: a hash of job key -> record, KEYS[2] their order: a zset of job key
-- scored by finish time (ms).
-- Record: "<attempt>,<maxAttempts>,<ttr>,<createdAt>,<dueAt>,<deliveredAt>,<finishedAt>", the
-- numbers after maxAttempts in base 36 (ms), then "\n<payload>" when the topic keeps payloads.
--
-- ARGV[1] = 'add': finished jobs are kept, and the oldest trimmed.
--   ARGV[2] most jobs kept (0: no count limit), ARGV[3] how long a job is kept, ms (0: no time
--   limit, measured back from this node's time), ARGV[4] the most entries to remove beyond the
--   number added, then per job: job key, its finish time (ms, by its bucket's clock), its
--   record. A job kept with a later finish time already (a later run) is left as it is.
--   Returns {now ms, jobs kept after the call}.
-- ARGV[1] = 'page': a page of the kept jobs, the latest finish first (then by job key, from
--   the greatest), after a cursor.
--   ARGV[2] how many, ARGV[3] '1' to include payloads, ARGV[4] the cursor's finish time (''
--   to start at the latest), ARGV[5] the cursor's job key: the page starts after that entry.
--   Returns {jobs kept, then per job: job key, record (without its payload unless asked)}.
--
-- A call's work is bounded by its arguments: 'add' removes at most as many entries as it adds
-- plus ARGV[4], so a lowered limit is reached over a few calls, and nothing scans in the
-- background. Every write comes after the reads, and none can fail once the first succeeded
-- (Redis refuses a script for memory only at its first write).
-- @include lib/call_many
-- @include lib/whole_number
-- @include lib/node_now
-- @include lib/later_entries
-- @include lib/beyond_limits
local records, order = KEYS[1], KEYS[2]

if ARGV[1] == 'add' then
  local keep, age, slack = whole_number(2), whole_number(3), whole_number(4)
  local now = node_now()
  -- a key of another type fails these reads, before anything is written
  redis.call('HLEN', records)
  redis.call('ZCARD', order)
  local scores, added = later_entries(order, 5, 3)
  local fields = {}
  for _, i in ipairs(added) do
    fields[#fields + 1] = ARGV[i]
    fields[#fields + 1] = ARGV[i + 2]
  end
  call_many('HSET', records, fields)
  call_many('ZADD', order, scores)
  -- the oldest entries beyond the limits, at most added + slack of them
  local named, total = beyond_limits(order, keep, age, now, #added + slack)
  local drop = {}
  for i = 1, #named, 2 do
    drop[#drop + 1] = named[i]
  end
  if #drop > 0 then
    call_many('ZREM', order, drop)
    call_many('HDEL', records, drop)
  end
  return { now, total - #drop }
end

if ARGV[1] == 'page' then
  local max, payloads = math.max(1, math.min(whole_number(2), 1001)), ARGV[3] == '1'
  local reply = { redis.call('ZCARD', order) }
  -- whether job key a sorts before b as a sorted set orders equal scores (by bytes)
  local function sorts_before(a, b)
    for i = 1, math.min(#a, #b) do
      local x, y = string.byte(a, i), string.byte(b, i)
      if x ~= y then
        return x < y
      end
    end
    return #a < #b
  end
  local entries
  if ARGV[4] == '' then
    entries = redis.call('ZREVRANGE', order, 0, max - 1, 'WITHSCORES')
  else
    local after, after_key = whole_number(4), ARGV[5]
    local rank = redis.call('ZREVRANK', order, after_key)
    if rank and tonumber(redis.call('ZSCORE', order, after_key)) == after then
      entries = redis.call('ZREVRANGE', order, rank + 1, rank + max, 'WITHSCORES')
    else
      -- the cursor's job left (trimmed, or finished again): skip the entries that finished
      -- at the same time and come before it (the jobs of one call share a time)
      entries = {}
      local offset = 0
      while #entries < 2 * max do
        local window = redis.call('ZREVRANGEBYSCORE', order, string.format('%.0f', after), '-inf', 'WITHSCORES',
          'LIMIT', offset, max)
        for i = 1, #window, 2 do
          local score = tonumber(window[i + 1])
          if (score < after or sorts_before(window[i], after_key)) and #entries < 2 * max then
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
  local jobkeys = {}
  for i = 1, #entries, 2 do
    jobkeys[#jobkeys + 1] = entries[i]
  end
  if #jobkeys > 0 then
    local found = redis.call('HMGET', records, unpack(jobkeys))
    for k, jobkey in ipairs(jobkeys) do
      local record = found[k]
      if record then
        if not payloads then
          local nl = string.find(record, '\n', 1, true)
          if nl then
            record = string.sub(record, 1, nl - 1)
          end
        end
        reply[#reply + 1] = jobkey
        reply[#reply + 1] = record
      end
    end
  end
  return reply
end

return redis.error_reply('delayqueue: completed.lua has no operation ' .. tostring(ARGV[1]))
