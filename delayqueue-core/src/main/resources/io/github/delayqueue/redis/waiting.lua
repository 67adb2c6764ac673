-- waiting.lua: a page of a topic's DELAYED (by due time), RESERVED (by TTR deadline), DEAD (by
-- time of death) or READY jobs in the bucket; reads, never writes, and examines at most ARGV[8]
-- index entries.
-- ARGV[3] topic, ARGV[4] state letter ('D', 'S', 'X' or 'R'), ARGV[5] page size, ARGV[6] the cursor's
-- time ('' from the first), ARGV[7] the cursor's job key, ARGV[8] entries to examine at most,
-- ARGV[9] '1' for payloads.
-- DELAYED, RESERVED and DEAD: the next jobs after the cursor by (score, job key).
-- READY: the first ARGV[5] jobs after the cursor by (due, job key) among the first ARGV[8] ready
-- entries.
-- Returns {entries examined, score and member of the last entry examined when the index goes on
-- ('' and '' when it was read to its end), the topic's DEAD jobs (0 for another state), then per
-- job: job key, what find.lua answers after the state, and the fencing token (lib/token; 0 unless
-- RESERVED)}.
-- @include lib/keys
-- @include lib/decode
-- @include lib/read_many
-- @include lib/ready_parts
-- @include lib/live_entry
-- @include lib/num
-- @include lib/bytes_before
-- @include lib/rank_after
-- @include lib/put_info
local topic, state, max, cap = ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[8])
local after, after_key = (ARGV[6] ~= '') and tonumber(ARGV[6]) or nil, ARGV[7]
local prefix = topic .. ':'

local found, examined, cut_score, cut_member, total = {}, 0, '', '', 0
if state == 'R' then
  local parts = ready_parts(topic, redis.call('LRANGE', P .. 'ready:' .. topic, 0, 0)[1])
  local seen = {}
  for _, part in ipairs(parts) do
    local entries = redis.call('LRANGE', part.key, part.from, part.from + cap - examined - 1)
    local records = read_many(KEYS[1], entries)
    for k, jobkey in ipairs(entries) do
      local j = live_entry(jobkey, records[k], seen, part.letter)
      if j and (not after or j.due > after or (j.due == after and bytes_before(after_key, jobkey))) then
        found[#found + 1] = { jobkey, j.due }
      end
    end
    examined = examined + #entries
    if examined >= cap then
      break
    end
  end
  -- only the first max jobs by (due, job key) can be on the page: read and answer no more
  if #found > max then
    table.sort(found, function(a, b)
      if a[2] ~= b[2] then
        return a[2] < b[2]
      end
      return bytes_before(a[1], b[1])
    end)
    for i = #found, max + 1, -1 do
      found[i] = nil
    end
  end
else
  local key = P .. ((state == 'S') and 'reserved' or (state == 'X') and ('dead:' .. topic) or 'delayed')
  total = (state == 'X') and redis.call('ZCARD', key) or 0
  local rank = after and rank_after(key, after, after_key) or 0
  local ended = false
  while #found < max and examined < cap do
    local window = math.min(cap - examined, 256)
    local entries = redis.call('ZRANGE', key, rank, rank + window - 1, 'WITHSCORES')
    for i = 1, #entries, 2 do
      examined = examined + 1
      -- the score as digits, whatever notation the server writes doubles in (Java reads a long)
      cut_member, cut_score = entries[i], num(tonumber(entries[i + 1]))
      if string.sub(entries[i], 1, #prefix) == prefix then
        found[#found + 1] = { entries[i], entries[i + 1] }
        if #found == max then
          break
        end
      end
    end
    if #entries < 2 * window and #found < max then
      ended = true
      break
    end
    rank = rank + window
  end
  if ended then
    cut_score, cut_member = '', ''
  end
end

local jobkeys = {}
for k, row in ipairs(found) do
  jobkeys[k] = row[1]
end
local records = read_many(KEYS[1], jobkeys)
local errors = read_many(P .. 'errors', jobkeys)
local reply = { examined, cut_score, cut_member, total }
for k, jobkey in ipairs(jobkeys) do
  local j = records[k] and decode(records[k])
  if j and j.state == state then
    reply[#reply + 1] = jobkey
    local score = tonumber(found[k][2])
    put_info(reply, j, (state == 'S') and score or 0, (state == 'X') and score or 0, errors[k] or '', ARGV[9] == '1')
    reply[#reply + 1] = j.token
  end
end
return reply
