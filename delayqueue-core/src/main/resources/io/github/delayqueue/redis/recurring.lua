-- recurring.lua: the recurring-job definitions of this bucket, and the firing of their ticks.
-- KEYS[1] jobs hash, KEYS[2] guard
-- ARGV[3] the operation, then its own arguments (below).
--
-- Keys: "recurring" (hash: definition name -> definition record) and "recurring-due" (sorted set:
-- the name of every definition that is not paused, scored by its next tick in ms). A definition
-- lives in bucket crc32(name) mod buckets, and each of its occurrences is an ordinary job whose
-- id the caller chose to hash into the same bucket, so one script sees both.
-- Definition record:
--   "<version>,<gen>,<paused>,<fired>,<skipped>,<misfired>,<lastTick>,<lastScheduled>,<lastKey>\n<spec>"
-- version counts the changes of spec (1 for a new one); gen is unique to each change (taken from
-- the bucket's "seq" counter, so a definition deleted and created again never has the gen of its
-- earlier self), and a firing must name it; paused is 0 or 1; fired counts the occurrences created,
-- skipped the ticks that created none, misfired the ticks that came late; lastTick (-1: none) and
-- lastKey (the job key "<topic>:<id>") are those of the last occurrence, the one the overlap check
-- and a fixed delay watch: created by a tick, or by a trigger while none was in the queue (see
-- trigger); lastScheduled (-1: none) is the latest tick a firing created an occurrence for: no
-- firing creates one for that tick or an earlier one again (a delayed put, a clock stepping back);
-- a put that changes the spec starts it afresh.
-- spec is the caller's text (never read here).
-- A put or resume that makes a definition the earliest of "recurring-due" is announced on the
-- channel as "c <bucket> <tick ms>", so the bucket's timer wakes for it.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/num
-- @include lib/to36
-- @include lib/new_record
-- @include lib/count
-- @include lib/announce_head
-- @include lib/push_ready
-- @include lib/lowest
local DEFS = P .. 'recurring'
local DUE = P .. 'recurring-due'
local DEF_HEADER = '^(%d+),(%d+),([01]),(%d+),(%d+),(%d+),(%-?%d+),(%-?%d+),([^\n]*)\n()'
local op = ARGV[3]
local now = now_ms()

-- The definition of a record, or nil when it is not in this format.
local function parse_def(record)
  local v, g, p, f, s, m, t, ls, key, body = string.match(record, DEF_HEADER)
  if not v then
    return nil
  end
  return { version = tonumber(v), gen = tonumber(g), paused = p, fired = tonumber(f), skipped = tonumber(s),
    misfired = tonumber(m), last_tick = tonumber(t), last_scheduled = tonumber(ls), last_key = key,
    spec = string.sub(record, body) }
end

-- The definition of a name (nil for none); an error for a record not in this format.
local function read_def(name)
  local record = redis.call('HGET', DEFS, name)
  if not record then
    return nil
  end
  return parse_def(record) or error('delayqueue: the recurring definition ' .. name .. ' in ' .. DEFS
    .. ' is not in the format of this version (put it again to replace it)')
end

local function write_def(name, d)
  redis.call('HSET', DEFS, name, num(d.version) .. ',' .. num(d.gen) .. ',' .. d.paused .. ',' .. num(d.fired) .. ','
    .. num(d.skipped) .. ',' .. num(d.misfired) .. ',' .. num(d.last_tick) .. ',' .. num(d.last_scheduled) .. ','
    .. d.last_key .. '\n' .. d.spec)
end

-- The next tick of a definition (-1: paused or none).
local function due_of(name)
  local score = redis.call('ZSCORE', DUE, name)
  return score and tonumber(score) or -1
end

-- Sets a definition's next tick (-1: none, it leaves the sorted set) and, when announce is set,
-- announces it when it became the earliest (a firing needs not: the timer that fires the bucket
-- learns the bucket's next tick from the reply).
local function set_due(name, tick, announce)
  if tick < 0 then
    redis.call('ZREM', DUE, name)
    return
  end
  redis.call('ZADD', DUE, num(tick), name)
  if announce and redis.call('ZRANGE', DUE, 0, 0)[1] == name then
    redis.call('PUBLISH', CHANNEL, 'c ' .. BUCKET .. ' ' .. num(tick))
  end
end

-- The earliest next tick of the bucket (-1: none).
local function head()
  local first = redis.call('ZRANGE', DUE, 0, 0, 'WITHSCORES')
  return first[2] and tonumber(first[2]) or -1
end

-- Creates an occurrence (an ordinary job) unless a job with its key exists. Returns 1 when created
-- and the topic when it became READY.
local function create(jobkey, topic, payload, due, ttr, max)
  local state = (due <= now) and 'R' or 'D'
  local _, first
  if state == 'D' then
    _, first = lowest(P .. 'delayed')
  end
  local record = new_record(state, max, to36(tonumber(ttr)), to36(now), to36(due - now), payload)
  if redis.call('HSETNX', KEYS[1], jobkey, record) == 0 then
    return 0
  end
  count(state, topic, 1)
  if state == 'R' then
    push_ready(topic, { jobkey })
    return 1, topic
  end
  redis.call('ZADD', P .. 'delayed', num(due), jobkey)
  if first == nil or due < first then
    announce_head(due)
  end
  return 1
end

-- put name spec next: creates a definition, or replaces its spec; an unchanged spec changes
-- nothing. A new or changed definition's next tick is next (-1: none; -2: right after now, for a
-- fixed delay), which must be after now
-- (the caller worked it out from a time read before: it is asked to again otherwise) -- unless
-- its current next tick has come and has not been fired yet (instances were down): that tick
-- stays, and the misfire policy of the new spec handles it. A record not in this format is
-- replaced. Returns {now, 1 created | 2 updated | 0 unchanged | -1 next is not after now,
-- version}.
if op == 'put' then
  local name, spec, next_tick = ARGV[4], ARGV[5], tonumber(ARGV[6])
  if next_tick == -2 then
    next_tick = now + 1
  end
  local record = redis.call('HGET', DEFS, name)
  local d = record and parse_def(record)
  if d and d.spec == spec then
    return { now, 0, d.version }
  end
  if next_tick >= 0 and next_tick <= now then
    return { now, -1, 0 }
  end
  local result = 2
  if not d then
    d = { version = 0, paused = '0', fired = 0, skipped = 0, misfired = 0, last_tick = -1, last_scheduled = -1,
      last_key = '' }
    result = 1
  end
  local current = due_of(name)
  -- the changed schedule starts afresh: a tick of the old one not yet come (a fixed delay
  -- records its occurrence's due time) must not hold it back. No tick it fired comes again: its
  -- next tick is after now (checked above), or the current one, which was not fired.
  d.last_scheduled = -1
  d.version = d.version + 1
  d.gen = redis.call('INCRBY', P .. 'seq', 1)
  d.spec = spec
  write_def(name, d)
  if d.paused == '0' and not (current >= 0 and current <= now) then
    set_due(name, next_tick, true)
  end
  return { now, result, d.version }
end

-- The state letter of a definition's last occurrence ('' when it is gone or there is none).
local function last_state(d)
  if d.last_key == '' then
    return ''
  end
  local job = redis.call('HGET', KEYS[1], d.last_key)
  return job and string.sub(job, 1, 1) or ''
end

-- get name: {now} for none, else {now, record, next tick, state letter of the last occurrence}
-- (a record not in this format is returned as it is, for the caller to report).
if op == 'get' then
  local record = redis.call('HGET', DEFS, ARGV[4])
  if not record then
    return { now }
  end
  local d = parse_def(record)
  return { now, record, due_of(ARGV[4]), d and last_state(d) or '' }
end

-- list: {now, then name, record, next tick, last occurrence's state letter for each definition
-- of the bucket}.
if op == 'list' then
  local all = redis.call('HGETALL', DEFS)
  local reply = { now }
  for i = 1, #all, 2 do
    reply[#reply + 1] = all[i]
    reply[#reply + 1] = all[i + 1]
    reply[#reply + 1] = due_of(all[i])
    local d = parse_def(all[i + 1])
    reply[#reply + 1] = d and last_state(d) or ''
  end
  return reply
end

-- due limit: the definitions whose next tick has come, at most limit of them: {now, next tick
-- of the bucket after them (-1: none), then name, record, tick, state letter of the last
-- occurrence ('' gone or none) for each}.
if op == 'due' then
  local found = redis.call('ZRANGEBYSCORE', DUE, '-inf', num(now), 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[4]))
  local reply = { now, -1 }
  for i = 1, #found, 2 do
    local record = redis.call('HGET', DEFS, found[i]) or ''
    local d = parse_def(record)
    reply[#reply + 1] = found[i]
    reply[#reply + 1] = record
    reply[#reply + 1] = tonumber(found[i + 1])
    reply[#reply + 1] = d and last_state(d) or ''
  end
  local after = redis.call('ZRANGE', DUE, #found / 2, #found / 2, 'WITHSCORES')
  reply[2] = after[2] and tonumber(after[2]) or -1
  return reply
end

-- fire, then for each definition: name, gen, expected tick, next tick (-1: none), '1' to skip
-- while the last occurrence is still there (any state but DEAD), ticks skipped, ticks misfired,
-- the number of occurrences n, then seven per occurrence: job key, topic, payload, due ms, ttr
-- ms, max attempts, tick ms. A definition fires only when it is unchanged (gen), not paused, its
-- next tick is still the expected one and has come: two timers that fire it at once create its
-- occurrences once. An occurrence whose tick is not after the definition's last scheduled tick
-- is not created (it was, by an earlier firing), and a duplicate is impossible anyway (HSETNX).
-- Returns {now, next tick of the bucket (-1: none), number of topics that got READY jobs k,
-- topic 1 .. topic k, then for each definition a letter and how many occurrences it created}:
-- f fired, k skipped (the last occurrence still runs), g gone (an entry without a definition
-- leaves the due set), s changed (gen or tick), p paused (it leaves the due set), e early (its tick has not come by Redis's clock), u a record not in
-- this format (it leaves the due set until it is put again).
if op == 'fire' then
  -- reads and checks first: the arguments' layout, then each definition
  local plans = {}
  local i = 4
  while i <= #ARGV do
    local n = tonumber(ARGV[i + 7])
    if not n or n < 0 or n ~= math.floor(n) or i + 7 + 7 * n > #ARGV or not tonumber(ARGV[i + 1])
        or not tonumber(ARGV[i + 2]) or not tonumber(ARGV[i + 3]) or not tonumber(ARGV[i + 5])
        or not tonumber(ARGV[i + 6]) then
      error('delayqueue: malformed fire arguments at ' .. i)
    end
    for o = i + 8, i + 8 + 7 * (n - 1), 7 do
      if not tonumber(ARGV[o + 3]) or not tonumber(ARGV[o + 4]) or not string.match(ARGV[o + 5], '^%d+$')
          or not tonumber(ARGV[o + 6]) then
        error('delayqueue: malformed fire occurrence at ' .. o)
      end
    end
    local plan = { name = ARGV[i], gen = tonumber(ARGV[i + 1]), tick = tonumber(ARGV[i + 2]),
      next_tick = tonumber(ARGV[i + 3]), overlap = ARGV[i + 4] == '1', skipped = tonumber(ARGV[i + 5]),
      misfired = tonumber(ARGV[i + 6]), first = i + 8, n = n }
    local record = redis.call('HGET', DEFS, plan.name)
    local d = record and parse_def(record)
    plan.def = d
    if not record then
      plan.result = 'g'
    elseif not d then
      plan.result = 'u'
    elseif d.gen ~= plan.gen or due_of(plan.name) ~= plan.tick then
      plan.result = 's'
    elseif d.paused == '1' then
      plan.result = 'p'
    elseif plan.tick > now then
      plan.result = 'e'
    elseif plan.overlap then
      local last = last_state(d)
      if last ~= '' and last ~= 'X' then -- a dead occurrence no longer runs
        plan.result = 'k'
      end
    end
    plans[#plans + 1] = plan
    i = i + 8 + 7 * n
  end
  -- then writes
  local topics, seen = {}, {}
  local results = {}
  for _, plan in ipairs(plans) do
    local created = 0
    local d = plan.def
    if plan.result == nil then
      plan.result = 'f'
      local misses = plan.skipped
      local after = d.last_scheduled
      for o = plan.first, plan.first + 7 * (plan.n - 1), 7 do
        local tick = tonumber(ARGV[o + 6])
        if tick <= after then
          -- fired before (a put delayed in flight, Redis's clock stepping back)
          misses = misses + 1
        else
          local made, topic = create(ARGV[o], ARGV[o + 1], ARGV[o + 2], tonumber(ARGV[o + 3]), ARGV[o + 4], ARGV[o + 5])
          created = created + made
          if made == 0 then
            misses = misses + 1
          else
            d.last_tick = tick
            d.last_key = ARGV[o]
          end
          if topic and not seen[topic] then
            seen[topic] = true
            topics[#topics + 1] = topic
          end
          d.last_scheduled = math.max(d.last_scheduled, tick)
        end
      end
      d.fired = d.fired + created
      d.skipped = d.skipped + misses
      d.misfired = d.misfired + plan.misfired
    elseif plan.result == 'k' then
      d.skipped = d.skipped + plan.skipped + plan.n
      d.misfired = d.misfired + plan.misfired
    end
    if plan.result == 'f' and plan.n == 0 and plan.skipped == 0 and plan.misfired == 0 then
      -- a fixed delay that looks whether its occurrence left: only its next look changes
      set_due(plan.name, plan.next_tick, false)
    elseif plan.result == 'f' or plan.result == 'k' then
      write_def(plan.name, d)
      set_due(plan.name, plan.next_tick, false)
    elseif plan.result == 'p' or plan.result == 'u' or plan.result == 'g' then
      redis.call('ZREM', DUE, plan.name)
    end
    results[#results + 1] = plan.result
    results[#results + 1] = created
  end
  local reply = { now, head(), #topics }
  for _, topic in ipairs(topics) do
    reply[#reply + 1] = topic
  end
  for _, r in ipairs(results) do
    reply[#reply + 1] = r
  end
  return reply
end

-- trigger name, then one occurrence: job key, topic, payload, ttr ms, max attempts, then the
-- gen of the definition it was made from, then '1' for a fixed delay. Creates it due now, paused
-- or not; the schedule is unchanged. It becomes the last occurrence (the one an overlap check
-- watches) only when the last one left the queue, and never for a fixed delay, whose next
-- occurrence waits for the one it scheduled alone. Returns {now, 1 created | 0 a job with that
-- key exists | -1 no such definition | -2 the definition changed: the caller makes it again}.
if op == 'trigger' then
  local d = read_def(ARGV[4])
  if not d then
    return { now, -1 }
  end
  if tonumber(ARGV[10]) ~= d.gen then
    return { now, -2 }
  end
  local made = create(ARGV[5], ARGV[6], ARGV[7], now, ARGV[8], ARGV[9])
  if made == 1 then
    d.fired = d.fired + 1
    local last = last_state(d)
    if ARGV[11] ~= '1' and (last == '' or last == 'X') then
      d.last_tick = now
      d.last_key = ARGV[5]
    end
    write_def(ARGV[4], d)
  end
  return { now, made }
end

-- pause name: {now, 1} when it was running, 0 paused already, -1 no such definition.
if op == 'pause' then
  local d = read_def(ARGV[4])
  if not d then
    return { now, -1 }
  end
  if d.paused == '1' then
    return { now, 0 }
  end
  d.paused = '1'
  write_def(ARGV[4], d)
  redis.call('ZREM', DUE, ARGV[4])
  return { now, 1 }
end

-- resume name next gen: the ticks while it was paused are not fired; next is its first tick
-- after now (-1: none; -2: right after now, for a fixed delay), worked out from the definition
-- of gen: when next is not after now, or the definition changed, the caller is asked to work it
-- out again. Returns {now, 1} when it was paused, 0 running already, -1 no such definition, -2
-- asked again.
if op == 'resume' then
  local d = read_def(ARGV[4])
  if not d then
    return { now, -1 }
  end
  if d.paused == '0' then
    return { now, 0 }
  end
  local next_tick = tonumber(ARGV[5])
  if next_tick == -2 then
    next_tick = now + 1
  end
  if next_tick >= 0 and next_tick <= now or tonumber(ARGV[6]) ~= d.gen then
    return { now, -2 }
  end
  d.paused = '0'
  write_def(ARGV[4], d)
  set_due(ARGV[4], next_tick, true)
  return { now, 1 }
end

-- delete name: {now, 1} when it existed. Its occurrences already created stay.
if op == 'delete' then
  redis.call('ZREM', DUE, ARGV[4])
  return { now, redis.call('HDEL', DEFS, ARGV[4]) }
end

error('delayqueue: unknown recurring operation ' .. tostring(op))
