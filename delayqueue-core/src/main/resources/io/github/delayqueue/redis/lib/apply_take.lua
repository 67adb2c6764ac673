-- Reserves the jobs of a plan_take (or of a plan with from = 'D': DELAYED jobs no list holds),
-- appending 9 values per job to reply (see below). Returns the ready entries left, the deadline
-- announced as the head or 0, and the earliest deadline it wrote to the reserved index (nil: none).
-- @include lib/keys
-- @include lib/num
-- @include lib/attempt_text
-- @include lib/encode
-- @include lib/call_many
-- @include lib/count
-- @include lib/announce_head
-- @include lib/default_priority
-- @include lib/sentinel_text
-- @include lib/write_sentinel
-- @include lib/token
local function apply_take(plan, ttr_override, max_override, holder, now, reply)
  local topic = plan.topic
  local list = P .. 'ready:' .. topic
  local jobs = plan.jobs
  if plan.levels then
    -- trims what was scanned and rewrites the first list's sentinel to name the priorities still
    -- listed (none: it goes, also when nothing was scanned); part.from is 1 after a sentinel
    local set, default_part, ended = {}, nil, true
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
      ended = ended and part.ended
    end
    local text = sentinel_text(set)
    if default_part.scanned > 0 then
      -- (the trim takes the sentinel too)
      redis.call('LTRIM', list, default_part.from + default_part.scanned, -1)
    end
    write_sentinel(list, (default_part.scanned == 0) and plan.sentinel or nil, text)
    if not text then
      -- (the entries left in the first list start at its head now)
      default_part.from = 0
    end
    plan.ended = ended
  elseif plan.scanned > 0 then
    redis.call('LTRIM', list, plan.scanned, -1)
  end
  count('T', topic, -plan.tombstones)
  local announced, earliest = 0, nil
  if #jobs > 0 then
    local seq = redis.call('INCRBY', P .. 'seq', #jobs) - #jobs
    local records, deadlines = {}, {}
    local prefix_len = #topic + 2
    -- number texts shared by the jobs are formatted once per call
    local max_text = (max_override > 0) and num(max_override) or nil
    local deadline_text, attempt_texts = {}, {}
    for i, j in ipairs(jobs) do
      local jobkey = plan.keys[i]
      if j.body then
        -- the record of live_entry's fast path: its times and payload are kept as they are
        j.payload = string.sub(j.record, j.body)
      end
      -- RESERVED at now: the next attempt, the token of reservation seq + i by holder (lib/token), the
      -- overrides (0: the job's own); the reply gets id, payload, attempt, max attempts, due ms, created
      -- ms, token, deadline ms and ttr ms
      local ttr = (ttr_override > 0) and ttr_override or j.ttr
      local deadline = now + ttr
      earliest = math.min(earliest or deadline, deadline)
      j.state = 'S'
      j.attempt = j.attempt + 1
      j.token = token(seq + i, holder)
      if max_override > 0 then
        j.max = max_override
      end
      local n = #reply
      reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4] = string.sub(jobkey, prefix_len), j.payload, j.attempt, j.max
      reply[n + 5], reply[n + 6], reply[n + 7], reply[n + 8], reply[n + 9] = j.due, j.created, j.token, deadline, ttr
      records[#records + 1] = jobkey
      if j.body then
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
    end
    call_many('HSET', KEYS[1], records)
    call_many('ZADD', P .. 'reserved', deadlines)
    count(plan.from or 'R', topic, -#jobs)
    count('S', topic, #jobs)
    if plan.before and (plan.before < 0 or earliest < plan.before) then
      announce_head(earliest)
      announced = earliest
    end
  end
  if plan.ended then
    return 0, announced, earliest
  end
  if plan.levels then
    -- the entries of every list left (not the sentinel)
    local left = 0
    for _, part in ipairs(plan.parts) do
      if not part.ended then
        left = left + (part.left or (redis.call('LLEN', part.key) - part.from))
      end
    end
    return left, announced, earliest
  end
  return redis.call('LLEN', list), announced, earliest
end
