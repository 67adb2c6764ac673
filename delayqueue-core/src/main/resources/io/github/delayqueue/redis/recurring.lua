-- recurring.lua: this bucket's recurring definitions ("recurring" hash, "recurring-due" zset by next tick).
-- KEYS[1] jobs hash, KEYS[2] guard; ARGV[3] the operation, then its arguments (see each below).
-- Record: "<version>,<gen>,<paused>,<fired>,<skipped>,<misfired>,<lastTick>,<lastScheduled>,<lastKey>\n<spec>";
-- gen changes on each put and a firing must name it; spec is Java's, never read here.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/num
-- @include lib/to36
-- @include lib/new_record
-- @include lib/create_job
-- @include lib/lowest
-- @include lib/due_entries
-- @include lib/topic_list
local DEFS = P .. 'recurring'
local DUE = P .. 'recurring-due'
local DEF_HEADER = '^(%d+),(%d+),([01]),(%d+),(%d+),(%d+),(%-?%d+),(%-?%d+),([^\n]*)\n()'
local op = ARGV[3]
local now = now_ms()

-- The fields of a record, nil for none or one of another format.
local function parse_def(record)
  local v, g, p, f, s, m, t, ls, key, body = string.match(record or '', DEF_HEADER)
  if not v then
    return nil
  end
  return { version = tonumber(v), gen = tonumber(g), paused = p, fired = tonumber(f), skipped = tonumber(s),
    misfired = tonumber(m), last_tick = tonumber(t), last_scheduled = tonumber(ls), last_key = key,
    spec = string.sub(record, body) }
end

local function write_def(name, d)
  redis.call('HSET', DEFS, name, num(d.version) .. ',' .. num(d.gen) .. ',' .. d.paused .. ',' .. num(d.fired) .. ','
    .. num(d.skipped) .. ',' .. num(d.misfired) .. ',' .. num(d.last_tick) .. ',' .. num(d.last_scheduled) .. ','
    .. d.last_key .. '\n' .. d.spec)
end

local function due_of(name)
  return tonumber(redis.call('ZSCORE', DUE, name) or -1)
end

-- tick -1 leaves the due set; announce publishes "c <bucket> <tick>" when it is the earliest.
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

-- Creates an occurrence unless its key exists: 1 when created, and the topic when it is READY.
local function create(jobkey, topic, payload, due, ttr, max)
  local state = (due <= now) and 'R' or 'D'
  local created = create_job(jobkey, topic, state,
    new_record(state, max, to36(tonumber(ttr)), to36(now), to36(due - now), payload), due)
  return created, (created == 1 and state == 'R') and topic or nil
end

-- A next tick argument: -1 none, -2 right after now; nil when it is not after now.
local function next_arg(arg)
  local tick = tonumber(arg)
  tick = (tick == -2) and now + 1 or tick
  return (tick < 0 or tick > now) and tick or nil
end

-- put name spec next: {now, 1 created | 2 updated | 0 unchanged | -1 next not after now}, then the next
-- tick when it wrote
if op == 'put' then
  local name, spec, next_tick = ARGV[4], ARGV[5], next_arg(ARGV[6])
  local d = parse_def(redis.call('HGET', DEFS, name))
  if d and d.spec == spec then
    return { now, 0 }
  end
  if not next_tick then
    return { now, -1 }
  end
  local result = d and 2 or 1
  d = d or { version = 0, paused = '0', fired = 0, skipped = 0, misfired = 0, last_tick = -1, last_key = '' }
  local current = due_of(name)
  -- a changed schedule starts afresh; a current tick that came and was not fired stays
  d.last_scheduled = -1
  d.version = d.version + 1
  d.gen = redis.call('INCRBY', P .. 'seq', 1)
  d.spec = spec
  write_def(name, d)
  if d.paused == '0' and not (current >= 0 and current <= now) then
    set_due(name, next_tick, true)
  end
  return { now, result, next_tick }
end

-- The state letter of the last occurrence ('' when gone or none).
local function last_state(d)
  local job = (d.last_key ~= '') and redis.call('HGET', KEYS[1], d.last_key)
  return job and string.sub(job, 1, 1) or ''
end

-- Appends a definition's record, tick and last occurrence's state letter to a reply.
local function describe(reply, record, tick)
  local d, n = parse_def(record), #reply
  reply[n + 1], reply[n + 2], reply[n + 3] = record, tick, d and last_state(d) or ''
  return reply
end

-- get name: {now} for none, else {now, record, next tick, last occurrence's state letter}
if op == 'get' then
  local record = redis.call('HGET', DEFS, ARGV[4])
  return record and describe({ now }, record, due_of(ARGV[4])) or { now }
end

-- list: {now, then name, record, next tick, last state letter per definition}
if op == 'list' then
  local all = redis.call('HGETALL', DEFS)
  local reply = { now }
  for i = 1, #all, 2 do
    reply[#reply + 1] = all[i]
    describe(reply, all[i + 1], due_of(all[i]))
  end
  return reply
end

-- due limit: {now, the next tick after them (-1: none), then name, record, tick, last state letter
-- of at most limit definitions whose tick has come}
if op == 'due' then
  local names, ticks, after = due_entries(DUE, tonumber(ARGV[4]), now)
  local reply = { now, after or -1 }
  for k, name in ipairs(names) do
    reply[#reply + 1] = name
    describe(reply, redis.call('HGET', DEFS, name) or '', ticks[k])
  end
  return reply
end

-- fire, then per definition: name, gen, expected tick, next tick, '1' to skip while the last
-- occurrence is in the queue, skipped, misfired, n, then n times, oldest first: job key, topic,
-- payload, due, ttr, max attempts, tick. Fires an unchanged definition at its expected tick (a
-- paused one has none), no tick at or before its lastScheduled. {now, next tick, k, k topics made
-- READY, then per definition a letter and the count created}: f fired, k skipped, g gone or
-- unreadable, s changed (or paused), e early.
if op == 'fire' then
  -- checks everything before the first write
  local plans = {}
  local i = 4
  while i <= #ARGV do
    local n = tonumber(ARGV[i + 7])
    local plan = { name = ARGV[i], gen = tonumber(ARGV[i + 1]), tick = tonumber(ARGV[i + 2]),
      next_tick = tonumber(ARGV[i + 3]), overlap = ARGV[i + 4] == '1', skipped = tonumber(ARGV[i + 5]),
      misfired = tonumber(ARGV[i + 6]), first = i + 8, n = n }
    if not n or n < 0 or n ~= math.floor(n) or i + 7 + 7 * n > #ARGV or not plan.gen or not plan.tick
        or not plan.next_tick or not plan.skipped or not plan.misfired then
      error('delayqueue: malformed fire arguments at ' .. i)
    end
    for o = i + 8, i + 8 + 7 * (n - 1), 7 do
      if not tonumber(ARGV[o + 3]) or not tonumber(ARGV[o + 4]) or not string.match(ARGV[o + 5], '^%d+$')
          or not tonumber(ARGV[o + 6]) then
        error('delayqueue: malformed fire occurrence at ' .. o)
      end
    end
    local d = parse_def(redis.call('HGET', DEFS, ARGV[i]))
    plan.def = d
    if not d then
      plan.result = 'g'
    elseif d.gen ~= plan.gen or due_of(plan.name) ~= plan.tick then
      plan.result = 's'
    elseif plan.tick > now then
      plan.result = 'e'
    elseif plan.overlap then
      local last = last_state(d)
      if last ~= '' and last ~= 'X' then
        plan.result = 'k'
      end
    end
    plans[#plans + 1] = plan
    i = i + 8 + 7 * n
  end
  local topics, seen, results = {}, {}, {}
  for _, plan in ipairs(plans) do
    local created, d = 0, plan.def
    if plan.result == nil then
      plan.result = 'f'
      for o = plan.first, plan.first + 7 * (plan.n - 1), 7 do
        local tick = tonumber(ARGV[o + 6])
        if tick > d.last_scheduled then
          local made, topic = create(ARGV[o], ARGV[o + 1], ARGV[o + 2], tonumber(ARGV[o + 3]), ARGV[o + 4], ARGV[o + 5])
          if made == 1 then
            created = created + 1
            d.last_tick = tick
            d.last_key = ARGV[o]
          end
          if topic then
            topic_list(seen, topics, topic)
          end
          d.last_scheduled = tick
        end
      end
    end
    if plan.result == 'f' or plan.result == 'k' then
      -- a fixed delay that only looked moves its next tick only
      if plan.n + plan.skipped + plan.misfired > 0 then
        d.fired = d.fired + created
        d.skipped = d.skipped + plan.skipped + plan.n - created
        d.misfired = d.misfired + plan.misfired
        write_def(plan.name, d)
      end
      set_due(plan.name, plan.next_tick, false)
    elseif plan.result == 'g' then
      set_due(plan.name, -1)
    end
    results[#results + 1] = plan.result
    results[#results + 1] = created
  end
  local _, head = lowest(DUE)
  local reply = { now, head or -1, #topics, unpack(topics) }
  for _, r in ipairs(results) do
    reply[#reply + 1] = r
  end
  return reply
end

-- delete name: {now, 1 when it existed}
if op == 'delete' then
  redis.call('ZREM', DUE, ARGV[4])
  return { now, redis.call('HDEL', DEFS, ARGV[4]) }
end

if op ~= 'trigger' and op ~= 'pause' and op ~= 'resume' then
  error('delayqueue: unknown recurring operation ' .. tostring(op))
end
-- the operations below answer {now, -1} when there is no such definition
local name = ARGV[4]
local record = redis.call('HGET', DEFS, name)
if not record then
  return { now, -1 }
end
local d = parse_def(record) or error('delayqueue: the recurring definition ' .. name .. ' in ' .. DEFS
  .. ' is not in the format of this version (put it again to replace it)')

-- trigger name, then an occurrence as fire's (its due and tick unused), gen, '1' for a fixed delay:
-- creates it due now, the last occurrence only when the last one left the queue (never for a fixed
-- delay). {now, 1 created | 0 exists | -2 changed}
if op == 'trigger' then
  if tonumber(ARGV[12]) ~= d.gen then
    return { now, -2 }
  end
  local made = create(ARGV[5], ARGV[6], ARGV[7], now, ARGV[9], ARGV[10])
  if made == 1 then
    d.fired = d.fired + 1
    local last = last_state(d)
    if ARGV[13] ~= '1' and (last == '' or last == 'X') then
      d.last_tick = now
      d.last_key = ARGV[5]
    end
    write_def(name, d)
  end
  return { now, made }
end

-- pause name | resume name next gen: {now, 1 done | 0 already so | -2 changed, or next not after now},
-- then the next tick (-1 for a pause) when it wrote
local pause = (op == 'pause') and '1' or '0'
if d.paused == pause then
  return { now, 0 }
end
local next_tick = (pause == '0') and next_arg(ARGV[5])
if pause == '0' and (not next_tick or tonumber(ARGV[6]) ~= d.gen) then
  return { now, -2 }
end
d.paused = pause
write_def(name, d)
-- (a paused definition leaves the due set)
set_due(name, next_tick or -1, true)
return { now, 1, next_tick or -1 }
