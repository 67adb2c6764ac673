-- completed.lua: the finished jobs a topic keeps. KEYS[1] job key -> record, KEYS[2] job keys by finish ms.
-- 'add' ARGV[2] most kept (0: no limit), ARGV[3] age ms (0: none), ARGV[4] extra trims, then per job:
-- job key, finish ms, its RESERVED record (finish.lua's reply), delivery ms (0: unknown); a later finish
-- kept already wins, an unreadable record keeps nothing of its job. Keeps <priority><attempt>,<max>,
-- <ttr>,<createdAt>,<dueAt>,<deliveredAt>,<finishedAt> in base 36, then the record's '\n<payload>' when it
-- has one. Returns {now ms, jobs kept}.
-- 'page' ARGV[2] size, ARGV[3] '1' for payloads, ARGV[4] cursor's finish ms ('' from the latest),
-- ARGV[5] cursor's job key. Returns {jobs kept, then job key and record per job}.
-- @include lib/call_many
-- @include lib/whole_number
-- @include lib/now_ms
-- @include lib/later_entries
-- @include lib/beyond_limits
-- @include lib/page_after
-- @include lib/pick
-- @include lib/read_many
-- @include lib/decode
-- @include lib/to36
local records, order = KEYS[1], KEYS[2]

if ARGV[1] == 'add' then
  local keep, age, slack = whole_number(2), whole_number(3), whole_number(4)
  local now = now_ms()
  -- an unreadable record keeps nothing of its job; a key of another type fails these reads,
  -- before anything is written
  local kept = {}
  for i = 5, #ARGV, 4 do
    local j = decode(ARGV[i + 2])
    if j then
      local payload = string.find(ARGV[i + 2], '\n', 1, true) and ('\n' .. j.payload) or ''
      kept[i] = table.concat({ j.letter .. j.attempt, j.max, to36(j.ttr), to36(j.created), to36(j.due),
        to36(whole_number(i + 3)), to36(whole_number(i + 1)) }, ',') .. payload
    end
  end
  redis.call('HLEN', records)
  redis.call('ZCARD', order)
  local added = later_entries(order, 5, 4, kept)
  local fields = {}
  for _, i in ipairs(added) do
    fields[#fields + 1] = ARGV[i]
    fields[#fields + 1] = kept[i]
  end
  call_many('HSET', records, fields)
  -- the oldest entries beyond the limits, at most added + slack of them
  local named, total = beyond_limits(order, keep, age, now, #added + slack)
  local drop = pick(named, 1, 2)
  if #drop > 0 then
    call_many('ZREM', order, drop)
    call_many('HDEL', records, drop)
  end
  return { now, total - #drop }
end

if ARGV[1] == 'page' then
  local max, payloads = math.max(1, math.min(whole_number(2), 1001)), ARGV[3] == '1'
  local reply = { redis.call('ZCARD', order) }
  local entries = page_after(order, max, (ARGV[4] ~= '') and whole_number(4) or nil, ARGV[5], true)
  local jobkeys = pick(entries, 1, 2)
  local found = read_many(records, jobkeys)
  for k, jobkey in ipairs(jobkeys) do
    local record = found[k]
    if record then
      reply[#reply + 1] = jobkey
      reply[#reply + 1] = payloads and record or string.match(record, '^[^\n]*')
    end
  end
  return reply
end

return redis.error_reply('delayqueue: completed.lua has no operation ' .. tostring(ARGV[1]))
