-- repair.lua: one bounded step of the repair of a bucket's indexes and counts (an operator's
-- tool; BucketRepair runs the steps in order). Each step reads at most its count of records or
-- entries. READY jobs seen by 'records' are noted in the scratch hash <bucket>:repair (job key
-- -> record header) until 'ready' finds their entries; 'restore' lists those left.
-- ARGV[3] '1' to write, '0' to count only (a count-only run writes only the scratch hash);
-- ARGV[4] the step and the repair's run id ('<step> <run>': 'begin' makes the run the bucket's one
-- in <bucket>:repair:run, every other step refuses to run for another), ARGV[5..] its arguments:
--   begin                                  -> the stats hash (field, value, ...)
--   records <cursor> <count> <fix 1|0>     -> {cursor, read, jobs, reindexed, unreadable, state:topic, n, ...}
--   index <key> <state> <after score|''> <after member> <count> -> {read, dropped, last score|'', last member}
--   errors <cursor> <count>                -> {cursor, read, dropped}
--   ready <topic> <priority> <skip> <count> (entries counted from the tail) -> {read}
--   restore <cursor> <count>               -> {cursor, read, topic, priority, ...} of the jobs put back
--   topic <topic> <restored 1|0> <extra priority>... -> {sentinel put right 1|0}
--   counts <n> <stats as read by begin: n values> <m> <tally: m values> <topic, pending>...
--                                          -> {1 when the stats changed since begin (nothing written), corrected}
--   end                                    -> {} (the bucket has no running repair any more)
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/num
-- @include lib/default_priority
-- @include lib/ready_key
-- @include lib/sentinel_levels
-- @include lib/sentinel_text
-- @include lib/write_sentinel
-- @include lib/split_header
-- @include lib/decode
-- @include lib/topic_of
-- @include lib/call_many
-- @include lib/read_many
-- @include lib/announce_ready
-- @include lib/push_ready
-- @include lib/page_after
-- @include lib/pick
-- @include lib/topic_list
local write = ARGV[3] == '1'
local step, run = string.match(ARGV[4], '^(%a+) (.+)$')
local SCRATCH, RUN = P .. 'repair', P .. 'repair:run'
if step ~= 'begin' then
  if redis.call('HGET', RUN, 'run') ~= run then
    return redis.error_reply('repair: another repair of this bucket began after this one; run one repair at a time')
  end
  redis.call('PEXPIRE', RUN, 3600000)
end

-- a job key's record as the job of a state, or nil
local function job_in(record, state)
  local j = record and decode(record)
  return j and j.state == state and j
end

if step == 'begin' then
  redis.call('DEL', SCRATCH)
  redis.call('HSET', RUN, 'run', run)
  redis.call('PEXPIRE', RUN, 3600000)
  return redis.call('HGETALL', P .. 'stats')

elseif step == 'records' then
  local fix = ARGV[7] == '1'
  local page = redis.call('HSCAN', KEYS[1], ARGV[5], 'COUNT', tonumber(ARGV[6]))
  local now = now_ms()
  local fields = page[2]
  local jobs, unreadable, reindexed = 0, 0, 0
  local tally = {}
  -- the index entries to add, by index: a DELAYED job's at its due time, another's at now
  local index_of = { D = 'delayed', S = 'reserved', X = 'dead:' }
  local zadds, indexes, noted = {}, {}, {}
  for i = 1, #fields, 2 do
    local jobkey = fields[i]
    local topic = topic_of(jobkey)
    local j = topic and decode(fields[i + 1])
    if not j then
      unreadable = unreadable + 1
    else
      jobs = jobs + 1
      local field = j.state .. ':' .. topic
      tally[field] = (tally[field] or 0) + 1
      local index = fix and index_of[j.state]
      if index then
        index = (j.state == 'X') and (index .. topic) or index
        local score = redis.call('ZSCORE', P .. index, jobkey)
        if not score or (j.state == 'D' and tonumber(score) ~= j.due) then
          local list = topic_list(zadds, indexes, index)
          list[#list + 1] = num((j.state == 'D') and j.due or now)
          list[#list + 1] = jobkey
          reindexed = reindexed + 1
        end
      elseif fix and j.state == 'R' then
        -- until 'ready' finds its entry
        noted[#noted + 1] = jobkey
        noted[#noted + 1] = split_header(fields[i + 1])
      end
    end
  end
  -- writes
  call_many('HSET', SCRATCH, noted)
  if #noted > 0 then
    -- a repair that stops half-way leaves no scratch behind for long
    redis.call('PEXPIRE', SCRATCH, 3600000)
  end
  if write then
    for _, index in ipairs(indexes) do
      call_many('ZADD', P .. index, zadds[index])
    end
  end
  local reply = { page[1], #fields / 2, jobs, reindexed, unreadable }
  for field, n in pairs(tally) do
    reply[#reply + 1] = field
    reply[#reply + 1] = n
  end
  return reply

elseif step == 'index' then
  -- entries whose record is missing, unreadable, in another state or of another topic go
  local key, state = P .. ARGV[5], ARGV[6]
  local list_topic = string.match(ARGV[5], '^dead:(.+)$')
  local after = (ARGV[7] ~= '') and tonumber(ARGV[7]) or nil
  local entries = page_after(key, tonumber(ARGV[9]), after, ARGV[8])
  local members = pick(entries, 1, 2)
  local records = read_many(KEYS[1], members)
  local stale = {}
  for k, jobkey in ipairs(members) do
    if not job_in(records[k], state) or (list_topic and topic_of(jobkey) ~= list_topic) then
      stale[#stale + 1] = jobkey
    end
  end
  if write then
    call_many('ZREM', key, stale)
  end
  return { #members, #stale, entries[#entries] or '', members[#members] or '' }

elseif step == 'errors' then
  local page = redis.call('HSCAN', P .. 'errors', ARGV[5], 'COUNT', tonumber(ARGV[6]))
  local keys = pick(page[2], 1, 2)
  local records = read_many(KEYS[1], keys)
  local orphans = {}
  for k, jobkey in ipairs(keys) do
    if not records[k] then
      orphans[#orphans + 1] = jobkey
    end
  end
  if write then
    call_many('HDEL', P .. 'errors', orphans)
  end
  return { page[1], #keys, #orphans }

elseif step == 'ready' then
  -- read from the tail: pushes at the tail make a window read entries again, never skip one
  local topic, p, skip, count = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
  local entries = redis.call('LRANGE', ready_key(topic, p), -(skip + count), -(skip + 1))
  local records = read_many(KEYS[1], entries)
  local listed = {}
  for k, jobkey in ipairs(entries) do
    local j = job_in(records[k], 'R')
    if j and j.priority == p then
      listed[#listed + 1] = jobkey
    end
  end
  call_many('HDEL', SCRATCH, listed)
  return { #entries }

elseif step == 'restore' then
  -- a READY job noted by 'records', whose entry no 'ready' step found and whose record has not
  -- changed since (a job taken and made READY again has another token), is in no list
  local page = redis.call('HSCAN', SCRATCH, ARGV[5], 'COUNT', tonumber(ARGV[6]))
  local keys, headers = pick(page[2], 1, 2), pick(page[2], 2, 2)
  local records = read_many(KEYS[1], keys)
  local lists, order, reply = {}, {}, { page[1], #keys }
  for k, jobkey in ipairs(keys) do
    local j = job_in(records[k], 'R')
    if j and split_header(records[k]) == headers[k] then
      local list = topic_list(lists, order, topic_of(jobkey) .. ' ' .. j.priority)
      list[#list + 1] = jobkey
      reply[#reply + 1] = topic_of(jobkey)
      reply[#reply + 1] = j.priority
    end
  end
  call_many('HDEL', SCRATCH, keys)
  if write then
    for _, list in ipairs(order) do
      local topic, p = string.match(list, '^(.+) (%d)$')
      p = tonumber(p)
      if p == DEFAULT_PRIORITY then
        push_ready(topic, lists[list])
      else
        -- the 'topic' step that follows names the list in the sentinel and announces it
        call_many('RPUSH', ready_key(topic, p), lists[list])
      end
    end
  end
  return reply

elseif step == 'topic' then
  -- the sentinel names exactly the priorities (but the default) whose lists have entries
  local topic = ARGV[5]
  local first_key = P .. 'ready:' .. topic
  local first = redis.call('LRANGE', first_key, 0, 0)[1]
  local current = sentinel_levels(first) and first or nil
  local levels = {}
  for i = 7, #ARGV do
    levels[tonumber(ARGV[i])] = true
  end
  for p = 0, 9 do
    if p ~= DEFAULT_PRIORITY and redis.call('LLEN', ready_key(topic, p)) > 0 then
      levels[p] = true
    end
  end
  levels[DEFAULT_PRIORITY] = nil
  local sentinel = sentinel_text(levels)
  local changed = sentinel ~= current
  if write then
    write_sentinel(first_key, current, sentinel)
    if sentinel and (changed or ARGV[6] == '1') then
      -- (a sentinel made the first list non-empty: no push announced the jobs)
      announce_ready(topic)
    end
  end
  return { changed and 1 or 0 }

elseif step == 'counts' then
  -- the counts are the tally of the records and, per topic, the list entries beyond its READY
  -- jobs (tombstones); written only when no count changed since 'begin' (no job changed state)
  local function figures(list, from, n)
    local map = {}
    for i = from, from + n - 1, 2 do
      if tonumber(list[i + 1]) ~= 0 then
        map[list[i]] = tonumber(list[i + 1])
      end
    end
    return map
  end
  local n = tonumber(ARGV[5])
  local before = figures(ARGV, 6, n)
  local m = tonumber(ARGV[6 + n])
  local counts = figures(ARGV, 7 + n, m)
  local stats = redis.call('HGETALL', P .. 'stats')
  local recorded, same = figures(stats, 1, #stats), true
  for field, value in pairs(recorded) do
    same = same and before[field] == value
  end
  for field in pairs(before) do
    same = same and recorded[field] ~= nil
  end
  if not same then
    return { 1, 0 }
  end
  for i = 7 + n + m, #ARGV, 2 do
    local topic = ARGV[i]
    local entries = tonumber(ARGV[i + 1])
    for p = 0, 9 do
      entries = entries + redis.call('LLEN', ready_key(topic, p))
    end
    if sentinel_levels(redis.call('LRANGE', P .. 'ready:' .. topic, 0, 0)[1]) then
      entries = entries - 1
    end
    local tombstones = entries - (counts['R:' .. topic] or 0)
    if tombstones > 0 then
      counts['T:' .. topic] = tombstones
    end
  end
  local corrected, fields = 0, {}
  for field, value in pairs(recorded) do
    if counts[field] ~= value then
      corrected = corrected + 1
    end
  end
  for field, value in pairs(counts) do
    if recorded[field] == nil then
      corrected = corrected + 1
    end
    fields[#fields + 1] = field
    fields[#fields + 1] = value
  end
  if write and corrected > 0 then
    redis.call('DEL', P .. 'stats')
    call_many('HSET', P .. 'stats', fields)
  end
  return { 0, corrected }
elseif step == 'end' then
  redis.call('DEL', RUN)
  return {}
end
return redis.error_reply('repair: unknown step ' .. tostring(step))
