-- repair.lua: rebuilds one bucket's indexes and counts from its records (an operator's tool).
-- ARGV[3] '1' to write, '0' to count only; ARGV[4..] the topics with a ready or dead list here.
-- Returns {jobs, jobs put back into their index, index entries and last errors dropped,
-- count fields corrected, unreadable records}.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/num
-- @include lib/default_priority
-- @include lib/ready_key
-- @include lib/sentinel_levels
-- @include lib/sentinel_text
-- @include lib/decode
-- @include lib/topic_of
-- @include lib/call_many
-- @include lib/announce_ready
-- @include lib/gathered
-- @include lib/gather_entry
-- @include lib/write_gathered
local write = ARGV[3] == '1'
local now = now_ms()

-- reads
-- Calls visit(field, value) for every field of a hash (HSCAN may give a field twice).
local function each_field(key, visit)
  local cursor = '0'
  repeat
    local page = redis.call('HSCAN', key, cursor, 'COUNT', 1000)
    cursor = page[1]
    for i = 1, #page[2], 2 do
      visit(page[2][i], page[2][i + 1])
    end
  until cursor == '0'
end
local function scores(key)
  local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local map = {}
  for i = 1, #entries, 2 do
    map[entries[i]] = tonumber(entries[i + 1])
  end
  return map
end
local delayed = scores(P .. 'delayed')
local reserved = scores(P .. 'reserved')
local stats = redis.call('HGETALL', P .. 'stats')
local topics, topic_order = {}, {}
local function topic_info(topic)
  local info = topics[topic]
  if not info then
    info = { dead = scores(P .. 'dead:' .. topic), listed = {}, entries = 0, ready = 0, missing = {}, levels = {} }
    -- every list of every priority (a lost sentinel must not hide one)
    for p = 0, 9 do
      local entries = redis.call('LRANGE', ready_key(topic, p), 0, -1)
      local from = 1
      if p == DEFAULT_PRIORITY and sentinel_levels(entries[1]) then
        info.sentinel = entries[1]
        from = 2
      end
      for k = from, #entries do
        info.listed[entries[k] .. '|' .. p] = true
        info.entries = info.entries + 1
      end
      if #entries >= from and p ~= DEFAULT_PRIORITY then
        info.levels[p] = true
      end
    end
    topics[topic] = info
    topic_order[#topic_order + 1] = topic
  end
  return info
end
for i = 1, #stats, 2 do
  local topic = string.match(stats[i], '^%u:(.+)$')
  if topic then
    topic_info(topic)
  end
end
for i = 4, #ARGV do
  topic_info(ARGV[i])
end

local counts, jobs, unreadable = {}, 0, 0
local zadd_delayed, zadd_reserved, zadd_dead = {}, {}, {}
local state_of = {}
-- every record's key, an unreadable one's too
local present = {}
each_field(KEYS[1], function(jobkey, record)
  present[jobkey] = true
  local topic = topic_of(jobkey)
  local j = topic and (state_of[jobkey] == nil) and decode(record)
  if state_of[jobkey] ~= nil then
    -- HSCAN may return a field twice
  elseif not j then
    unreadable = unreadable + 1
  else
    jobs = jobs + 1
    local info = topic_info(topic)
    local field = j.state .. ':' .. topic
    counts[field] = (counts[field] or 0) + 1
    state_of[jobkey] = j.state
    if j.state == 'D' then
      if delayed[jobkey] ~= j.due then
        zadd_delayed[#zadd_delayed + 1] = num(j.due)
        zadd_delayed[#zadd_delayed + 1] = jobkey
      end
    elseif j.state == 'S' then
      if not reserved[jobkey] then
        zadd_reserved[#zadd_reserved + 1] = num(now)
        zadd_reserved[#zadd_reserved + 1] = jobkey
      end
    elseif j.state == 'X' then
      if not info.dead[jobkey] then
        zadd_dead[topic] = zadd_dead[topic] or {}
        zadd_dead[topic][#zadd_dead[topic] + 1] = num(now)
        zadd_dead[topic][#zadd_dead[topic] + 1] = jobkey
      end
    elseif j.state == 'R' then
      info.ready = info.ready + 1
      if not info.listed[jobkey .. '|' .. j.priority] then
        info.missing[#info.missing + 1] = { jobkey, j.priority }
        if j.priority ~= DEFAULT_PRIORITY then
          info.levels[j.priority] = true
        end
      end
    end
  end
end)

local function stale(map, state)
  local keys = {}
  for jobkey in pairs(map) do
    if state_of[jobkey] ~= state then
      keys[#keys + 1] = jobkey
    end
  end
  return keys
end
local zrem_delayed = stale(delayed, 'D')
local zrem_reserved = stale(reserved, 'S')
-- last errors without a job
local orphan_errors, orphaned = {}, {}
each_field(P .. 'errors', function(jobkey)
  if not present[jobkey] and not orphaned[jobkey] then
    orphaned[jobkey] = true
    orphan_errors[#orphan_errors + 1] = jobkey
  end
end)
local reindexed = #zadd_delayed / 2 + #zadd_reserved / 2
local dropped = #zrem_delayed + #zrem_reserved + #orphan_errors
local zrem_dead = {}
for _, topic in ipairs(topic_order) do
  local info = topics[topic]
  reindexed = reindexed + #info.missing + (zadd_dead[topic] and #zadd_dead[topic] / 2 or 0)
  -- a sentinel that does not name exactly the priorities with entries is put right (one repair)
  info.new_sentinel = sentinel_text(info.levels)
  if info.new_sentinel ~= info.sentinel then
    reindexed = reindexed + 1
  end
  zrem_dead[topic] = stale(info.dead, 'X')
  dropped = dropped + #zrem_dead[topic]
  -- every entry that is not a READY job's (listed or put back now) is a tombstone
  local tombstones = info.entries + #info.missing - info.ready
  if tombstones > 0 then
    counts['T:' .. topic] = tombstones
  end
end
local corrected = 0
local recorded = {}
for i = 1, #stats, 2 do
  -- a field at 0 counts as missing (the guard deletes it)
  local value = tonumber(stats[i + 1])
  if value ~= 0 then
    recorded[stats[i]] = value
    if counts[stats[i]] ~= value then
      corrected = corrected + 1
    end
  end
end
local fields = {}
for field, n in pairs(counts) do
  if recorded[field] == nil then
    corrected = corrected + 1
  end
  fields[#fields + 1] = field
  fields[#fields + 1] = n
end

-- writes
if write then
  call_many('ZADD', P .. 'delayed', zadd_delayed)
  call_many('ZADD', P .. 'reserved', zadd_reserved)
  call_many('ZREM', P .. 'delayed', zrem_delayed)
  call_many('ZREM', P .. 'reserved', zrem_reserved)
  call_many('HDEL', P .. 'errors', orphan_errors)
  for _, topic in ipairs(topic_order) do
    local info = topics[topic]
    if zadd_dead[topic] then
      call_many('ZADD', P .. 'dead:' .. topic, zadd_dead[topic])
    end
    call_many('ZREM', P .. 'dead:' .. topic, zrem_dead[topic])
    -- the sentinel names exactly the priorities whose lists have entries
    local sentinel = info.new_sentinel
    if sentinel ~= info.sentinel then
      local first = P .. 'ready:' .. topic
      if info.sentinel then
        redis.call('LPOP', first)
      end
      if sentinel then
        redis.call('LPUSH', first, sentinel)
      end
    end
    if #info.missing > 0 then
      local w = gathered()
      for _, missing in ipairs(info.missing) do
        gather_entry(w, topic, missing[1], missing[2])
      end
      write_gathered(w)
    end
    if sentinel and (#info.missing > 0 or sentinel ~= info.sentinel) then
      -- (the sentinel just written made the first list non-empty: the pushes did not announce)
      announce_ready(topic)
    end
  end
  if corrected > 0 then
    redis.call('DEL', P .. 'stats')
    call_many('HSET', P .. 'stats', fields)
  end
end
return { jobs, reindexed, dropped, corrected, unreadable }
