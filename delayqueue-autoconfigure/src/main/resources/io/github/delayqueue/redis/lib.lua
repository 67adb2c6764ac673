-- lib.lua: helpers of the delayqueue job scripts. A script starts with those it names, and those
-- they name in turn (LuaLibrary): Redis creates each helper a script holds again on every call.
-- So the top level holds only local declarations, each starting a line, a function's end at the
-- start of a line, and values that call no more than string and number functions.
--
-- Keys. Every script of a bucket gets KEYS[1] = "{<namespace>:<bucket>}:jobs" and KEYS[2] =
-- "{<namespace>:<bucket>}:guard"; the other keys of the bucket are derived from KEYS[1]'s
-- prefix, so all of them share one hash tag (one slot). The guard is never written: a Redis
-- Cluster node refuses a script that declares a key it does not hold while the key's slot is
-- being migrated (TRYAGAIN, or ASK and then TRYAGAIN on the importing node), so no script of a
-- bucket runs while some of the bucket's keys may already be on the other node. Without it a
-- script would fail part-way on the old node ("non local key") or see moved keys as empty on
-- the new one. The caller retries until the slot is stable.
-- ARGV[1] = the pub/sub channel, ARGV[2] = the bucket number; the rest is the script's own.
--
-- The rule every script follows: it fails before it writes, or not at all. Redis does not undo
-- a script's earlier writes when a later command fails, so a script
--   1. reads and checks everything first: records are decoded (one that cannot be read raises
--      its error here), index entries and list windows are read, arguments are checked;
--   2. then writes, every variadic command through call_many (Lua's unpack stops near 8,000
--      values) and no command that can fail for a reason step 1 could have seen;
--   3. and the state counts last (flush_counts, after the body returns).
-- Redis refuses a script for lack of memory (OOM) only at its first write, which is before
-- anything changed. A call's work is bounded by its arguments: callers split big batches.
--
-- Job record, the value of field "<topic>:<id>" in the jobs hash:
--   "<state><priority><attempt>,<maxAttempts>,<ttr>,<createdAt>,<delay>,<token>\n<payload>"
-- state: D = DELAYED, R = READY, S = RESERVED, X = DEAD (one letter, the attempt right after it).
-- priority: nothing for the default priority 5, else one lower-case letter, 'a' for 0 (the
-- lowest) to 'j' for 9 (the highest), never 'f': a job of the default priority stores not one
-- byte for it.
-- attempt, maxAttempts and token are decimal, attempt and token empty while 0; an attempt
-- written with a leading '0' ('0' itself while 0, '01' once taken) marks a replayed job, which
-- may keep the last error of its earlier life: a finish deletes the last error only of a job so
-- marked or past its first attempt (no other job has one), which spares the finish of a job
-- delivered once a command. ttr (ms),
-- createdAt (epoch ms) and delay (dueAt - createdAt, ms; negative for a negative delay) are
-- base 36. Example, a new job due in an hour: "D,3,n5c,mwm0nk74,255s0,\n{...}" (24 bytes of
-- header; decimal text took 42 and put a 200-byte payload's record into a larger allocation).
--
-- Indexes: DELAYED jobs are in the "delayed" zset (score: due time), RESERVED jobs in the
-- "reserved" zset (score: TTR deadline), DEAD jobs in "dead:<topic>" (score: time of death),
-- READY jobs in the list "ready:<topic>" (at least once), or "ready:<topic>:<priority>" for a
-- priority other than the default. A ready-list entry whose job left READY (cancelled, replaced,
-- rescheduled) or whose job's priority is not the list's stays in the list as a tombstone:
-- reserve skips it. While a list of another priority has entries, the first entry of
-- "ready:<topic>" is the sentinel "^<priorities>" (their digits, highest first, e.g. "^93"):
-- a take reads that list's head anyway, so a topic that uses the default priority alone pays
-- nothing for priorities, and one that uses others reads their lists only while they have
-- entries. The sentinel is no job and no tombstone: it is not counted.
-- Stats hash fields "<state>:<topic>" count the jobs of each topic in each state, and
-- "T:<topic>" the tombstones of the topic's ready lists, exactly: the lengths of its ready lists
-- add up to R:<topic> + T:<topic> (+ 1 for a sentinel). A missing field counts 0. A field that falls to 0 stays until
-- the guard re-check of its bucket deletes it (promote.lua): a job that passes through a state
-- alone would otherwise cost an HDEL per state; readers skip zero fields.
-- Events published on the channel: "r <bucket> <topic>" when a ready list goes from empty
-- to non-empty (or on a guard re-announce), "h <bucket> <dueAt>" when a job becomes the
-- earliest of the bucket's delay queue.
local P = string.sub(KEYS[1], 1, -5)
local CHANNEL = ARGV[1]
local BUCKET = ARGV[2]

-- The most values one command takes from unpack (Lua's limit is near 8,000).
local CHUNK = 1000

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function num(x)
  return string.format('%.0f', x)
end

-- the digits of base 36 (a literal: a script holding it builds it on every call, a loop building
-- the table would cost every call more than its lookups save)
local B36 = { [0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
  'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z' }

-- An integer in base 36 (lower case, '-' before a negative one).
local function to36(x)
  local negative = x < 0
  if negative then
    x = -x
  end
  local s = ''
  repeat
    local d = x % 36
    s = B36[d] .. s
    x = (x - d) / 36
  until x == 0
  return negative and ('-' .. s) or s
end

local function from36(s)
  if string.byte(s, 1) == 45 then
    return -tonumber(string.sub(s, 2), 36)
  end
  return tonumber(s, 36)
end

-- A count that is usually 0 (attempt, token): empty when 0.
local function count_text(x)
  return (x == 0) and '' or num(x)
end

-- The text of an attempt: count_text's, after a '0' for a replayed job (see the record format).
local function attempt_text(attempt, marked)
  if marked then
    return '0' .. count_text(attempt)
  end
  return count_text(attempt)
end

-- The header's grammar: HEADER reads it (decode); HEADER_SHAPE is the same without captures,
-- for a check that reads nothing (delayed_to_ready). Change both together, and READY_HEADER
-- (live_entry's take of a READY record) with them.
local HEADER = '^(%u)([a-eg-j]?)(%d*),(%d+),((%w+),(%w+),(%-?%w+)),(%d*)$'
local HEADER_SHAPE = '^%u[a-eg-j]?%d*,%d+,%w+,%w+,%-?%w+,%d*$'

-- Priorities: 0 (lowest) to 9 (highest); DEFAULT_PRIORITY has no letter in a record and its
-- jobs use the topic's first ready list.
local DEFAULT_PRIORITY = 5
local SENTINEL = 94 -- '^', the first byte of a sentinel (no job key starts with it)

-- The letter of a priority in a record ('' for the default).
local function priority_letter(p)
  return (p == DEFAULT_PRIORITY) and '' or string.char(97 + p)
end

-- The priority of a record, from the letter after its state (none: the default).
local function priority_of(record)
  local b = string.byte(record, 2)
  if b and b >= 97 and b <= 106 and b ~= 102 then -- 'a' to 'j', not 'f' (the default has none)
    return b - 97
  end
  return DEFAULT_PRIORITY
end

-- The ready list of a topic's jobs of priority p.
local function ready_key(topic, p)
  if p == DEFAULT_PRIORITY then
    return P .. 'ready:' .. topic
  end
  return P .. 'ready:' .. topic .. ':' .. p
end

-- The priorities a sentinel names, highest first (nil for an entry that is not a sentinel).
local function sentinel_levels(entry)
  if not entry or string.byte(entry, 1) ~= SENTINEL then
    return nil
  end
  local levels = {}
  for i = 2, #entry do
    levels[#levels + 1] = string.byte(entry, i) - 48
  end
  return levels
end

-- The sentinel naming the priorities of a set (priority -> true), or nil for none.
local function sentinel_text(set)
  local text = '^'
  for p = 9, 0, -1 do
    if set[p] then
      text = text .. p
    end
  end
  return (#text > 1) and text or nil
end

-- The ready lists of a topic in the order a take reads them, from the first entry of its
-- first list: { key, priority letter, first index, priority } per list; only the first list
-- when that entry is no sentinel, else the higher priorities, the default one (after the
-- sentinel) and the lower ones.
local function ready_parts(topic, first)
  local default = { key = P .. 'ready:' .. topic, letter = '', from = 0, level = DEFAULT_PRIORITY }
  local levels = sentinel_levels(first)
  if not levels then
    return { default }, nil
  end
  default.from = 1
  local parts = {}
  for _, p in ipairs(levels) do
    if p < DEFAULT_PRIORITY and default then
      parts[#parts + 1] = default
      default = nil
    end
    parts[#parts + 1] = { key = ready_key(topic, p), letter = priority_letter(p), from = 0, level = p }
  end
  if default then
    parts[#parts + 1] = default
  end
  return parts, levels
end

-- A record's header (the text before its first '\n', or all of it without one) and where its
-- payload starts.
local function split_header(record)
  local nl = string.find(record, '\n', 1, true) or (#record + 1)
  return string.sub(record, 1, nl - 1), nl + 1
end

-- The job of a record, or nil when the record is not in this format (a loop over many jobs
-- skips such a record as it skips one in an unexpected state; a script about one job uses
-- readable, which refuses it before anything is written). j.times keeps the record's
-- "<ttr>,<createdAt>,<delay>" text, which encode reuses while ttr, due and created are
-- unchanged (a reserve changes none of them).
local function decode(record)
  local header, body = split_header(record)
  local s, p, a, m, times, ttr, created, delay, token = string.match(header, HEADER)
  if not s then
    return nil
  end
  local j = { state = s, priority = (p == '') and DEFAULT_PRIORITY or (string.byte(p) - 97), letter = p,
    attempt = tonumber(a) or 0, marked = string.byte(a, 1) == 48, max = tonumber(m), ttr = tonumber(ttr, 36),
    created = tonumber(created, 36), token = tonumber(token) or 0, payload = string.sub(record, body),
    times = times }
  j.due = j.created + from36(delay)
  j.times_ttr, j.times_due, j.times_created = j.ttr, j.due, j.created
  return j
end

-- The job of a record; an error naming the record when it is not in this format.
local function readable(jobkey, record)
  return decode(record) or error('delayqueue: the record of job ' .. jobkey .. ' in ' .. KEYS[1]
    .. ' is not in the format of this version (written by an earlier snapshot?): '
    .. string.sub(record, 1, math.min(#record, 60)))
end

local function encode(j)
  local times = j.times
  if not times or j.ttr ~= j.times_ttr or j.due ~= j.times_due or j.created ~= j.times_created then
    times = to36(j.ttr) .. ',' .. to36(j.created) .. ',' .. to36(j.due - j.created)
  end
  return j.state .. priority_letter(j.priority) .. attempt_text(j.attempt, j.marked) .. ',' .. num(j.max) .. ',' .. times .. ','
    .. count_text(j.token) .. '\n' .. j.payload
end

-- The record of a job just created (attempt 0, token 0): state with its priority letter, max
-- attempts as the decimal text the caller sent, ttr, createdAt and the delay already in base 36.
local function new_record(state, max_text, ttr36, created36, delay36, payload)
  return state .. ',' .. max_text .. ',' .. ttr36 .. ',' .. created36 .. ',' .. delay36 .. ',\n' .. payload
end

local function save(jobkey, j)
  redis.call('HSET', KEYS[1], jobkey, encode(j))
end

local function topic_of(jobkey)
  return string.match(jobkey, '^([^:]+):')
end

-- Every step-th item of a list from its first-th on: the members of a WITHSCORES reply (1, 2),
-- the job keys of a script's arguments when each job takes several.
local function pick(items, first, step)
  local picked = {}
  for i = first, #items, step do
    picked[#picked + 1] = items[i]
  end
  return picked
end

-- Runs a command with a key and many arguments, in chunks that Lua's unpack can take (CHUNK is
-- even, so pairs such as ZADD's score and member stay together).
local function call_many(command, key, items)
  for i = 1, #items, CHUNK do
    redis.call(command, key, unpack(items, i, math.min(#items, i + CHUNK - 1)))
  end
end

-- The values of many fields of a hash, read in chunks: a table with one entry per field, in
-- order (false for a missing field).
local function read_many(key, fields)
  local values = {}
  for i = 1, #fields, CHUNK do
    local found = redis.call('HMGET', key, unpack(fields, i, math.min(#fields, i + CHUNK - 1)))
    for k = 1, #found do
      values[i + k - 1] = found[k]
    end
  end
  return values
end

-- State counts change in memory and reach the stats hash once per field when the script ends
-- (flush_counts, called after the script's body): a batch of jobs costs one HINCRBY per field,
-- and a field that falls to 0 is left for the guard re-check to delete.
local COUNTS = {}       -- state -> topic -> delta
local COUNT_ORDER = {}  -- { state, topic } in the order of their first change

-- (The field name is made once per state and topic, when it is written: a batch counts every
-- job, and a concatenation per job would cost more than the rest of count.)
local function count(state, topic, delta)
  local topics = COUNTS[state]
  if topics == nil then
    topics = {}
    COUNTS[state] = topics
  end
  local current = topics[topic]
  if current == nil then
    COUNT_ORDER[#COUNT_ORDER + 1] = { state, topic }
    current = 0
  end
  topics[topic] = current + delta
end

local function flush_counts()
  for _, changed in ipairs(COUNT_ORDER) do
    local state, topic = changed[1], changed[2]
    local delta = COUNTS[state][topic]
    if delta ~= 0 then
      redis.call('HINCRBY', P .. 'stats', state .. ':' .. topic, delta)
    end
  end
end

local function move(topic, from, to)
  count(from, topic, -1)
  count(to, topic, 1)
end

-- Tells consumers that a topic's ready list has jobs (the "r" event).
local function announce_ready(topic)
  redis.call('PUBLISH', CHANNEL, 'r ' .. BUCKET .. ' ' .. topic)
end

-- Tells the timers that the bucket's next event is at time at (ms) (the "h" event).
local function announce_head(at)
  redis.call('PUBLISH', CHANNEL, 'h ' .. BUCKET .. ' ' .. num(at))
end

-- Where push_ready leaves announcing to the caller (promote.lua): topic -> the length of its
-- ready list after a push to the empty list. nil: push_ready announces.
local UNANNOUNCED = nil

-- Makes the first entry of a topic's first ready list a sentinel that names priority p (a
-- list of p just got entries). Returns whether that list was empty before.
local function mark_priority(topic, p)
  local key = P .. 'ready:' .. topic
  local first = redis.call('LRANGE', key, 0, 0)[1]
  local levels = sentinel_levels(first)
  if levels then
    local set = { [p] = true }
    for _, level in ipairs(levels) do
      set[level] = true
    end
    local text = sentinel_text(set)
    if text ~= first then
      redis.call('LSET', key, 0, text)
    end
    return false
  end
  redis.call('LPUSH', key, '^' .. p)
  return not first
end

-- Appends job keys of priority p (nil: the default) to a topic's ready list; announces the
-- topic when its first list was empty (or notes the entries in UNANNOUNCED for the caller to
-- announce).
local function push_ready(topic, jobkeys, p)
  local was_empty, length = false, 0
  if p and p ~= DEFAULT_PRIORITY then
    call_many('RPUSH', ready_key(topic, p), jobkeys)
    was_empty = mark_priority(topic, p)
    length = #jobkeys
  else
    local key = P .. 'ready:' .. topic
    for i = 1, #jobkeys, CHUNK do
      local last = math.min(#jobkeys, i + CHUNK - 1)
      length = redis.call('RPUSH', key, unpack(jobkeys, i, last))
      was_empty = was_empty or (i == 1 and length == last)
    end
  end
  if was_empty then
    if UNANNOUNCED then
      UNANNOUNCED[topic] = length
    else
      announce_ready(topic)
    end
  elseif UNANNOUNCED and UNANNOUNCED[topic] then
    -- the same step made the topic non-empty with jobs of another priority
    UNANNOUNCED[topic] = UNANNOUNCED[topic] + #jobkeys
  end
end

-- Puts a job key of priority p back at the front of its ready list (after the sentinel);
-- announces the topic when its first list was empty.
local function push_front(topic, jobkey, p)
  local key = P .. 'ready:' .. topic
  if p ~= DEFAULT_PRIORITY then
    redis.call('LPUSH', ready_key(topic, p), jobkey)
    if mark_priority(topic, p) then
      announce_ready(topic)
    end
    return
  end
  local first = redis.call('LRANGE', key, 0, 0)[1]
  if sentinel_levels(first) then
    redis.call('LSET', key, 0, jobkey)
    redis.call('LPUSH', key, first)
  elseif redis.call('LPUSH', key, jobkey) == 1 then
    announce_ready(topic)
  end
end

-- Puts a job key into the delay queue; announces it when it became the earliest. Returns 1 then.
local function push_delayed(jobkey, due)
  redis.call('ZADD', P .. 'delayed', num(due), jobkey)
  if redis.call('ZRANGE', P .. 'delayed', 0, 0)[1] == jobkey then
    announce_head(due)
    return 1
  end
  return 0
end

-- Stores a job that waits for its due time: READY at once when due, else DELAYED.
-- Returns 1 when it became the bucket's head.
local function place(jobkey, topic, j, now)
  if j.due <= now then
    j.state = 'R'
    save(jobkey, j)
    push_ready(topic, { jobkey }, j.priority)
    return 0
  end
  j.state = 'D'
  save(jobkey, j)
  return push_delayed(jobkey, j.due)
end

-- Removes a job from the index of its state; a ready-list entry stays as a tombstone.
local function unlink(jobkey, topic, j)
  if j.state == 'D' then
    redis.call('ZREM', P .. 'delayed', jobkey)
  elseif j.state == 'S' then
    redis.call('ZREM', P .. 'reserved', jobkey)
  elseif j.state == 'X' then
    redis.call('ZREM', P .. 'dead:' .. topic, jobkey)
  elseif j.state == 'R' then
    count('T', topic, 1)
  end
  count(j.state, topic, -1)
end

-- Jobs leave the queue (finished or cancelled): their records and last errors are deleted. (The
-- caller unlinks them from their indexes.) erring: the jobs that may have a last error, when
-- the caller knows them to be fewer (see the record format); nil for all of them.
local function forget(jobkeys, erring)
  call_many('HDEL', KEYS[1], jobkeys)
  call_many('HDEL', P .. 'errors', erring or jobkeys)
end

-- The list of a topic in lists (topic -> list), created when new and its topic then appended to
-- topics, which keeps the order in which the topics came.
local function topic_list(lists, topics, topic)
  local list = lists[topic]
  if not list then
    list = {}
    lists[topic] = list
    topics[#topics + 1] = topic
  end
  return list
end

-- Writes that a script gathers while it works out a batch of jobs, to make them at the end with
-- one command per key (write_gathered): job records, last errors, and the entries of dead lists
-- and of ready lists per topic. w.ready_topics lists the topics whose ready lists get entries,
-- w.ready their entries in order (all priorities), w.levels the priority of each entry of a
-- topic that has one other than the default (topic -> position -> priority; nil for a topic
-- whose entries all have the default).
local function gathered()
  return { records = {}, errors = {}, dead = {}, dead_topics = {}, ready = {}, ready_topics = {}, levels = {} }
end

-- Gathers a record to write for a job key.
local function gather_record(w, jobkey, record)
  local records = w.records
  records[#records + 1] = jobkey
  records[#records + 1] = record
end

-- Gathers a ready-list entry of a topic, of priority p.
local function gather_entry(w, topic, jobkey, p)
  local list = topic_list(w.ready, w.ready_topics, topic)
  list[#list + 1] = jobkey
  if p ~= DEFAULT_PRIORITY then
    local levels = w.levels[topic]
    if not levels then
      levels = {}
      w.levels[topic] = levels
    end
    levels[#list] = p
  end
end

-- A job in state from becomes READY with the given record: its record and ready-list entry are
-- gathered, the counts change.
local function gather_ready_record(w, jobkey, topic, record, from)
  gather_record(w, jobkey, record)
  gather_entry(w, topic, jobkey, priority_of(record))
  move(topic, from, 'R')
end

-- A job in state from becomes READY (its decoded record j is written again).
local function gather_ready(w, jobkey, topic, j, from)
  j.state = 'R'
  gather_ready_record(w, jobkey, topic, encode(j), from)
end

-- The record of a DELAYED job as READY, or nil when the record is not a DELAYED job's one that
-- decode reads. Only the state letter changes, so the header's shape is checked and nothing
-- is decoded: a fraction of the time of decode and encode, in every promotion.
local function delayed_to_ready(record)
  if string.byte(record, 1) == 68 and string.find(split_header(record), HEADER_SHAPE) then
    return 'R' .. string.sub(record, 2)
  end
  return nil
end

-- A RESERVED job becomes DEAD at time now (ms) with the error text err: its record, dead-list
-- entry and last error are gathered, the counts change. (The caller removes its reserved-index
-- entry.)
local function gather_dead(w, jobkey, topic, j, now, err)
  j.state = 'X'
  gather_record(w, jobkey, encode(j))
  local errors = w.errors
  errors[#errors + 1] = jobkey
  errors[#errors + 1] = err
  local list = topic_list(w.dead, w.dead_topics, topic)
  list[#list + 1] = num(now)
  list[#list + 1] = jobkey
  move(topic, 'S', 'X')
end

-- Makes the gathered writes: the records, the errors, the dead-list entries, then the ready-list
-- entries (announced as push_ready does).
local function write_gathered(w)
  call_many('HSET', KEYS[1], w.records)
  call_many('HSET', P .. 'errors', w.errors)
  for _, topic in ipairs(w.dead_topics) do
    call_many('ZADD', P .. 'dead:' .. topic, w.dead[topic])
  end
  for _, topic in ipairs(w.ready_topics) do
    local levels = w.levels[topic]
    if not levels then
      push_ready(topic, w.ready[topic])
    else
      -- the entries of each priority in their order, the default first
      local lists = { [DEFAULT_PRIORITY] = {} }
      for k, jobkey in ipairs(w.ready[topic]) do
        local p = levels[k] or DEFAULT_PRIORITY
        lists[p] = lists[p] or {}
        lists[p][#lists[p] + 1] = jobkey
      end
      if #lists[DEFAULT_PRIORITY] > 0 then
        push_ready(topic, lists[DEFAULT_PRIORITY])
      end
      for p = 9, 0, -1 do
        if p ~= DEFAULT_PRIORITY and lists[p] then
          push_ready(topic, lists[p], p)
        end
      end
    end
  end
end

-- The job stored under a job key, or nil when there is none (a record that is not in this format
-- raises its error, before anything is written).
local function stored(jobkey)
  local record = redis.call('HGET', KEYS[1], jobkey)
  if not record then
    return nil
  end
  return readable(jobkey, record)
end

-- Whether a record is RESERVED under the caller's fencing token, reading only the record's
-- first letter and the token at the end of its first line. Returns the reply for a record that
-- is not: 0 for no record, -1 for another state or token; nil when it is.
local function refusal(record, token)
  if not record then
    return 0
  end
  local nl = string.find(record, '\n', 1, true)
  if string.byte(record, 1) ~= 83 or not nl or string.sub(record, nl - #token - 1, nl - 1) ~= ',' .. token then
    return -1
  end
  return nil
end

-- Loads a reserved job and checks the caller's fencing token.
-- Returns the job, or nil and the reply for a job that is gone (0) or not the caller's (-1).
local function held(jobkey, token)
  local record = redis.call('HGET', KEYS[1], jobkey)
  local refused = refusal(record, token)
  if refused then
    return nil, refused
  end
  return readable(jobkey, record)
end

-- The member of a sorted set with the lowest score, and that score (nil when the set is empty).
local function lowest(key)
  local head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return head[1], head[2] and tonumber(head[2])
end

-- The bucket's next timer events: the earliest due time of the delay queue and the earliest TTR
-- deadline of the reserved index (nil for an empty index).
local function heads()
  local _, d = lowest(P .. 'delayed')
  local _, r = lowest(P .. 'reserved')
  return d, r
end

-- The earlier of the times d and r of heads; -1 when there is neither.
local function earlier(d, r)
  if d and r then
    return math.min(d, r)
  end
  return d or r or -1
end

-- When the bucket's timer has work next (-1: no job waits).
local function next_due()
  return earlier(heads())
end

-- A READY job's record as a take reads it: the header's fields that a take changes or returns,
-- and the text that a take keeps as it is. The same grammar as HEADER, with the state R and the
-- '\n' that ends the header; a record without a payload line is left to decode.
local READY_HEADER = '^R([a-eg-j]?)(%d*),(%d+),((%w+),(%w+),(%-?%w+)),%d*()\n'

-- The job of a ready-list entry, or nil when the entry is a tombstone: its record is gone, not
-- READY, unreadable or of another priority than the list's (letter: the list's priority letter,
-- '' for the default), or seen already holds its job (an earlier entry of the same job). seen
-- then holds the job. Only what a take needs is read from the record (j.times: the record's
-- "<ttr>,<createdAt>,<delay>" text, j.body: where the payload starts); decode reads the rest
-- of a record whose header READY_HEADER does not cover.
local function live_entry(jobkey, record, seen, letter)
  if seen[jobkey] or not record or string.byte(record, 1) ~= 82 then -- 82: 'R'
    return nil
  end
  local p, a, m, times, ttr, created, delay, nl = string.match(record, READY_HEADER)
  local j
  if p then
    if p ~= letter then
      return nil
    end
    created = tonumber(created, 36)
    j = { attempt = tonumber(a) or 0, marked = string.byte(a, 1) == 48, max = tonumber(m), max_text = m,
      times = times, letter = p,
      ttr = tonumber(ttr, 36), created = created, due = created + from36(delay), record = record,
      body = nl + 1 }
  else
    j = decode(record)
    if j and j.letter ~= letter then
      return nil
    end
  end
  if j then
    seen[jobkey] = true
  end
  return j
end

-- How many ready-list entries a take looks at beyond the jobs it wants: the tombstones it may
-- skip in one call (the rest wait for the next call), so that a call's work stays bounded.
local TAKE_SLACK = 1000

-- Scans one ready list of a plan_take (part: one of ready_parts) from its first entry not
-- scanned yet, adding its jobs to the plan until the plan has max jobs or has looked at limit
-- entries. first, when given, is the list's first window already read (want entries asked).
local function scan_part(plan, part, max, limit, seen, first, first_want)
  part.scanned, part.tombstones, part.ended = 0, 0, false
  while #plan.jobs < max and plan.scanned < limit do
    local want = math.min(limit - plan.scanned, math.max(max - #plan.jobs, 16))
    local entries
    if first then
      entries, want, first = first, first_want, nil
    else
      local from = part.from + part.scanned
      entries = redis.call('LRANGE', part.key, from, from + want - 1)
    end
    local records = read_many(KEYS[1], entries)
    local counted = 0
    for k, jobkey in ipairs(entries) do
      counted = counted + 1
      local j = live_entry(jobkey, records[k], seen, part.letter)
      if j then
        plan.jobs[#plan.jobs + 1] = j
        plan.keys[#plan.keys + 1] = jobkey
        if #plan.jobs >= max then
          break
        end
      else
        part.tombstones = part.tombstones + 1
      end
    end
    plan.scanned = plan.scanned + counted
    part.scanned = part.scanned + counted
    if #entries < want then
      -- the list ends here; nothing is left in it when every entry read was scanned
      part.ended = (counted == #entries)
      break
    end
  end
  plan.tombstones = plan.tombstones + part.tombstones
end

-- Reads the heads of a topic's ready lists for a take (no writes): up to max READY jobs, the
-- highest priority first and FIFO within one, looking at no more than max + TAKE_SLACK entries.
-- Entries whose record is gone, not READY or of another priority, and a second entry of a job
-- already taken, are tombstones. Returns the plan for apply_take; plan.ended tells that the
-- lists have no entries beyond those scanned. A take that finds no job reads nothing else (no
-- clock, no heads, no length): most takes of a trickle find none. A topic without a sentinel
-- costs what one list costs: the first window read is the one its scan starts from.
local function plan_take(topic, max)
  local plan = { topic = topic, jobs = {}, keys = {}, scanned = 0, tombstones = 0, ended = false }
  local seen = {}
  local limit = max + TAKE_SLACK
  local want = math.min(limit, math.max(max, 16))
  local first = redis.call('LRANGE', P .. 'ready:' .. topic, 0, want - 1)
  local parts, levels = ready_parts(topic, first[1])
  plan.parts, plan.sentinel, plan.levels = parts, levels and first[1], levels
  local ended = true
  for _, part in ipairs(parts) do
    if #plan.jobs < max and plan.scanned < limit then
      if levels then
        scan_part(plan, part, max, limit, seen)
      else
        scan_part(plan, part, max, limit, seen, first, want)
      end
      ended = ended and part.ended
    else
      part.scanned, part.tombstones, part.ended = 0, 0, false
      ended = false
    end
  end
  plan.ended = ended
  if #plan.jobs > 0 then
    local _, d = lowest(P .. 'delayed')
    plan.delayed_head = d
  end
  return plan
end

-- Reads, before the caller writes anything, what apply_take needs to tell whether the earliest
-- deadline of a plan's jobs (Redis's time now + TTR) becomes the bucket's next timer event:
-- the delay queue's head (read by plan_take) when that comes first, as it mostly does, else
-- the reserved index's head too (plan.before: the earlier of them, -1 for neither; nil when
-- the delay queue's head comes first).
local function plan_deadline(plan, ttr_override, now)
  local earliest = nil
  for _, j in ipairs(plan.jobs) do
    local ttr = (ttr_override > 0) and ttr_override or j.ttr
    if earliest == nil or ttr < earliest then
      earliest = ttr
    end
  end
  if earliest == nil then
    return
  end
  plan.earliest = now + earliest
  local d = plan.delayed_head
  if d == nil or plan.earliest < d then
    local _, r = lowest(P .. 'reserved')
    plan.before = earlier(d, r)
  end
end

-- Removes the entries a plan_take scanned from the topic's ready lists, and rewrites the
-- sentinel of the first list (list) to name the priorities whose lists still have entries
-- (none: it is removed). part.from is 1 for the first list, after its sentinel: the sentinel
-- goes with the entries trimmed and is pushed again.
local function trim_parts(plan, list)
  local set = {}
  local default_part
  for _, part in ipairs(plan.parts) do
    if part.level == DEFAULT_PRIORITY then
      default_part = part
    else
      if part.scanned > 0 then
        redis.call('LTRIM', part.key, part.scanned, -1)
      end
      if not part.ended then
        -- a scan that stopped where the list ends did not see that it ended
        part.left = redis.call('LLEN', part.key)
        part.ended = part.left == 0
      end
      if not part.ended then
        set[part.level] = true
      end
    end
  end
  local text = sentinel_text(set)
  if default_part.scanned > 0 then
    redis.call('LTRIM', list, default_part.from + default_part.scanned, -1)
    if text then
      redis.call('LPUSH', list, text)
    end
  elseif not text then
    redis.call('LPOP', list)
  elseif text ~= plan.sentinel then
    redis.call('LSET', list, 0, text)
  end
  if not text then
    -- (the entries left in the first list start at its head now)
    default_part.from = 0
  end
end

-- Appends what a consumer gets of a job just reserved to a reply, 9 values: id, payload,
-- attempt, max attempts, due ms, created ms, token, deadline ms, ttr ms.
local function put_reserved(reply, id, j, deadline, ttr)
  local n = #reply
  reply[n + 1] = id
  reply[n + 2] = j.payload
  reply[n + 3] = j.attempt
  reply[n + 4] = j.max
  reply[n + 5] = j.due
  reply[n + 6] = j.created
  reply[n + 7] = j.token
  reply[n + 8] = deadline
  reply[n + 9] = ttr
end

-- Hands the jobs of a plan_take to a consumer (READY -> RESERVED), appending to reply per job:
-- id, payload, attempt, max attempts, due ms, created ms, token, deadline ms, ttr ms.
-- ttr_override 0: each job's own ttr; max_override > 0 becomes the job's attempts limit (stored,
-- so fail and a TTR expiry use it). now is Redis's time, read only when the plan has jobs;
-- plan_deadline(plan, ttr_override, now) has read the heads before the caller's first write.
-- Returns the entries left in the ready list, and the earliest new deadline when it became the
-- bucket's next timer event (announced as a head, so the timer wakes for it) else 0.
local function apply_take(plan, ttr_override, max_override, now, reply)
  local topic = plan.topic
  local list = P .. 'ready:' .. topic
  local jobs = plan.jobs
  if plan.levels then
    -- (also when nothing was scanned: a sentinel that names no list with entries goes)
    trim_parts(plan, list)
    count('T', topic, -plan.tombstones)
    local ended = true
    for _, part in ipairs(plan.parts) do
      ended = ended and part.ended
    end
    plan.ended = ended
  elseif plan.scanned > 0 then
    redis.call('LTRIM', list, plan.scanned, -1)
    count('T', topic, -plan.tombstones)
  end
  local announced = 0
  if #jobs > 0 then
    local token = redis.call('INCRBY', P .. 'seq', #jobs) - #jobs
    local records, deadlines = {}, {}
    local prefix_len = #topic + 2
    -- number texts are formatted once per call where the jobs share them (a format costs
    -- about as much as the rest of a job's record)
    local max_text = (max_override > 0) and num(max_override) or nil
    local deadline_text, attempt_texts = {}, {}
    for i, j in ipairs(jobs) do
      local jobkey = plan.keys[i]
      local ttr = (ttr_override > 0) and ttr_override or j.ttr
      local deadline = now + ttr
      j.state = 'S'
      j.attempt = j.attempt + 1
      j.token = token + i
      if max_override > 0 then
        j.max = max_override
      end
      records[#records + 1] = jobkey
      if j.body then
        -- the record of live_entry's fast path: its times and payload are kept as they are
        j.payload = string.sub(j.record, j.body)
        -- (a replayed job's text is cached under the attempt's negative)
        local cached = j.marked and -j.attempt or j.attempt
        local attempt = attempt_texts[cached]
        if not attempt then
          attempt = attempt_text(j.attempt, j.marked)
          attempt_texts[cached] = attempt
        end
        records[#records + 1] = 'S' .. j.letter .. attempt .. ',' .. (max_text or j.max_text) .. ',' .. j.times .. ','
          .. num(j.token) .. '\n' .. j.payload
      else
        records[#records + 1] = encode(j)
      end
      local deadline_at = deadline_text[ttr]
      if not deadline_at then
        deadline_at = num(deadline)
        deadline_text[ttr] = deadline_at
      end
      deadlines[#deadlines + 1] = deadline_at
      deadlines[#deadlines + 1] = jobkey
      put_reserved(reply, string.sub(jobkey, prefix_len), j, deadline, ttr)
    end
    call_many('HSET', KEYS[1], records)
    call_many('ZADD', P .. 'reserved', deadlines)
    count('R', topic, -#jobs)
    count('S', topic, #jobs)
    if plan.before and (plan.before < 0 or plan.earliest < plan.before) then
      announce_head(plan.earliest)
      announced = plan.earliest
    end
  end
  if plan.ended then
    return 0, announced
  end
  if plan.levels then
    -- the entries of every list left (not the sentinel)
    local left = 0
    for _, part in ipairs(plan.parts) do
      if not part.ended then
        left = left + (part.left or (redis.call('LLEN', part.key) - part.from))
      end
    end
    return left, announced
  end
  return redis.call('LLEN', list), announced
end
