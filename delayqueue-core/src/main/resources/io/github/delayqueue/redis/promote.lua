-- promote.lua: the timer's step: due DELAYED jobs to their ready lists (or RESERVED for an offer),
-- expired reservations READY again or DEAD. ARGV[3] batch size, ARGV[4] '1' guard re-check
-- (re-announce, drop zero stats, compact ready lists), ARGV[5] '1' leave announcing to the caller,
-- ARGV[6] this instance's number (lib/token), ARGV[7] n offers, then n x {topic, max, ttr ms (0: the job's),
-- attempts limit (0: the job's)}.
-- Returns {moved, expired, next due (-1: none), now, recurring tick (guard; -1 none, -2 unread), n,
-- n x {topic, unannounced length or -1}, m, m x {topic, ready, dead}, k, k x {topic, c, c x take}}.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/num
-- @include lib/sentinel_text
-- @include lib/write_sentinel
-- @include lib/ready_parts
-- @include lib/decode
-- @include lib/encode
-- @include lib/topic_of
-- @include lib/call_many
-- @include lib/read_many
-- @include lib/count
-- @include lib/announce_ready
-- @include lib/push_ready
-- @include lib/unnote
-- @include lib/topic_list
-- @include lib/gathered
-- @include lib/gather_ready
-- @include lib/delayed_to_ready
-- @include lib/gather_dead
-- @include lib/write_gathered
-- @include lib/earlier
-- @include lib/lowest
-- @include lib/live_entry
-- @include lib/apply_take
-- @include lib/due_entries
local COMPACT_AT = 1000
local COMPACT_WINDOW = 10000
local batch = tonumber(ARGV[3])
local guard = ARGV[4] == '1'
local now = now_ms()
if ARGV[5] == '1' and not guard then
  UNANNOUNCED = {}
end

local due, _, d = due_entries(P .. 'delayed', batch, now)
local expired_keys, deadlines, r = due_entries(P .. 'reserved', batch - #due, now)
local due_records = read_many(KEYS[1], due)
local expired_records = read_many(KEYS[1], expired_keys)

-- the offers: which due jobs this step reserves for a waiting consumer
local offered = {}  -- per topic whose jobs are reserved, its plan for apply_take (below)
local reserved_here = {}  -- job key -> true
local holder, offers = tonumber(ARGV[6]), tonumber(ARGV[7] or '0')
if offers > 0 and not guard then
  local wanted = {}
  for i = 8, 7 + 4 * offers, 4 do
    wanted[ARGV[i]] = true
  end
  local due_of = {}
  for k, jobkey in ipairs(due) do
    local topic = topic_of(jobkey)
    local j = topic and wanted[topic] and due_records[k] and delayed_to_ready(due_records[k])
      and decode(due_records[k])
    if j then
      due_of[topic] = due_of[topic] or {}
      table.insert(due_of[topic], { jobkey, j })
    end
  end
  local expiring = {}
  for _, jobkey in ipairs(expired_keys) do
    expiring[topic_of(jobkey) or ''] = true
  end
  for i = 8, 7 + 4 * offers, 4 do
    local topic = ARGV[i]
    local list = due_of[topic]
    if list and #list <= tonumber(ARGV[i + 1]) and not expiring[topic]
        and redis.call('LLEN', P .. 'ready:' .. topic) == 0 then
      -- a plan for apply_take: the highest priority first, then in due order, as a take
      local plan = { topic = topic, jobs = {}, keys = {}, scanned = 0, tombstones = 0, ended = true, from = 'D',
        ttr = tonumber(ARGV[i + 2]), max = tonumber(ARGV[i + 3]) }
      for p = 9, 0, -1 do
        for _, entry in ipairs(list) do
          if entry[2].priority == p then
            plan.jobs[#plan.jobs + 1] = entry[2]
            plan.keys[#plan.keys + 1] = entry[1]
            reserved_here[entry[1]] = true
          end
        end
      end
      offered[#offered + 1] = plan
      due_of[topic] = nil
    end
  end
end
local stats = guard and redis.call('HGETALL', P .. 'stats') or {}
local zeros, compactions, sentinel_fixes = {}, {}, {}
local budget = COMPACT_WINDOW
for i = 1, #stats, 2 do
  local topic = string.match(stats[i], '^T:(.+)$')
  if tonumber(stats[i + 1]) == 0 then
    zeros[#zeros + 1] = stats[i]
  elseif topic and budget > 0 then
    local tombstones = tonumber(stats[i + 1])
    local live = tonumber(redis.call('HGET', P .. 'stats', 'R:' .. topic) or 0)
    if tombstones >= COMPACT_AT and tombstones > live then
      local first = redis.call('LRANGE', P .. 'ready:' .. topic, 0, 0)[1]
      local parts, levels = ready_parts(topic, first)
      local trimmed, emptied = false, {}
      for _, part in ipairs(parts) do
        if budget > 0 then
          local entries = redis.call('LRANGE', part.key, part.from, part.from + budget - 1)
          budget = budget - #entries
          local records = read_many(KEYS[1], entries)
          local keep, seen, dropped = {}, {}, 0
          for k, jobkey in ipairs(entries) do
            if live_entry(jobkey, records[k], seen, part.letter) then
              keep[#keep + 1] = jobkey
            else
              dropped = dropped + 1
            end
          end
          compactions[#compactions + 1] = { topic = topic, list = part.key, from = part.from, entries = #entries,
            keep = keep, dropped = dropped }
          if part.from > 0 then
            -- (the trim of the first list takes its sentinel too)
            trimmed = true
          elseif #keep == 0 and #entries == redis.call('LLEN', part.key) then
            emptied[part.level] = true
          end
        end
      end
      -- the sentinel stops naming the lists the compaction empties
      if levels then
        local set = {}
        for _, p in ipairs(levels) do
          set[p] = not emptied[p] or nil
        end
        sentinel_fixes[#sentinel_fixes + 1] = { list = P .. 'ready:' .. topic, old = (not trimmed) and first or nil,
          text = sentinel_text(set) }
      end
    end
  end
end

-- writes; zero stats go first, so a count changed below comes back
call_many('HDEL', P .. 'stats', zeros)
-- compaction before any push (a push may write a sentinel): live entries to the tail, which is
-- the head of a list the window held whole (the trim empties it)
for _, c in ipairs(compactions) do
  redis.call('LTRIM', c.list, c.from + c.entries, -1)
  call_many('RPUSH', c.list, c.keep)
  unnote(c.keep)
  count('T', c.topic, -c.dropped)
end
for _, fix in ipairs(sentinel_fixes) do
  write_sentinel(fix.list, fix.old, fix.text)
end

local w = gathered()
if #due > 0 then
  redis.call('ZREMRANGEBYRANK', P .. 'delayed', 0, #due - 1)
  for k, jobkey in ipairs(due) do
    local ready = not reserved_here[jobkey] and due_records[k] and delayed_to_ready(due_records[k])
    if ready then
      gather_ready(w, jobkey, topic_of(jobkey), ready, 'D')
    end
  end
end

local expired = #expired_keys
local expiries, expiry_order = {}, {}  -- topic -> { READY again, DEAD }
if expired > 0 then
  redis.call('ZREMRANGEBYRANK', P .. 'reserved', 0, expired - 1)
  for k, jobkey in ipairs(expired_keys) do
    local j = expired_records[k] and decode(expired_records[k])
    if j and j.state == 'S' then
      local topic = topic_of(jobkey)
      local tally = topic_list(expiries, expiry_order, topic)
      j.due = deadlines[k]
      if j.attempt >= j.max then
        tally[2] = (tally[2] or 0) + 1
        gather_dead(w, jobkey, topic, j, now,
          'the reservation ran out (TTR) on attempt ' .. num(j.attempt) .. ' of ' .. num(j.max))
      else
        tally[1] = (tally[1] or 0) + 1
        j.state = 'R'
        gather_ready(w, jobkey, topic, encode(j), 'S')
      end
    end
  end
end
-- the offers' reservations, after the expired ones left the reserved index; r stays the index's
-- next deadline
local delivered = {}
for _, plan in ipairs(offered) do
  local fields = { plan.topic, #plan.jobs }
  local _, _, earliest = apply_take(plan, plan.ttr, plan.max, holder, now, fields)
  r = math.min(r or earliest, earliest)
  delivered[#delivered + 1] = fields
end
write_gathered(w)
local order = w.ready_topics

-- a guard re-check re-announces every topic whose ready lists have entries or tombstones
if guard then
  local announced = {}
  for i = 1, #stats, 2 do
    local topic = string.match(stats[i], '^[RT]:(.+)$')
    if topic and not announced[topic] and tonumber(stats[i + 1]) > 0 then
      announced[topic] = true
      announce_ready(topic)
      if not w.levels[topic] then
        order[#order + 1] = topic
      end
    end
  end
end

local recurring = -2
if guard then
  local _, tick = lowest(P .. 'recurring-due')
  recurring = tick or -1
end

local reply = { #due, expired, earlier(d, r), now, recurring, #order }
for _, topic in ipairs(order) do
  reply[#reply + 1] = topic
  reply[#reply + 1] = (UNANNOUNCED and UNANNOUNCED[topic]) or -1
end
reply[#reply + 1] = #expiry_order
for _, topic in ipairs(expiry_order) do
  reply[#reply + 1] = topic
  reply[#reply + 1] = expiries[topic][1] or 0
  reply[#reply + 1] = expiries[topic][2] or 0
end
reply[#reply + 1] = #delivered
for _, fields in ipairs(delivered) do
  for _, value in ipairs(fields) do
    reply[#reply + 1] = value
  end
end
return reply
