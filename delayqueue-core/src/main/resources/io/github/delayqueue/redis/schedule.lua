-- schedule.lua: creates jobs, or keeps / replaces existing ones with the same key.
-- ARGV[3..] eight per job: job key, topic, payload, 'd' (delay) or 'a' (absolute) followed by a
-- priority digit unless default, the time ms, ttr ms, max attempts, '1' to replace.
-- Returns {now ms, number (from 1) of the job that became the bucket's head or 0, then per job:
-- created (1/0), state letter, due ms}.
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/num
-- @include lib/to36
-- @include lib/default_priority
-- @include lib/priority_letter
-- @include lib/readable
-- @include lib/new_record
-- @include lib/pick
-- @include lib/call_many
-- @include lib/read_many
-- @include lib/count
-- @include lib/announce_head
-- @include lib/push_ready
-- @include lib/unlink
-- @include lib/gathered
-- @include lib/gather_record
-- @include lib/gather_entry
-- @include lib/write_gathered
-- @include lib/lowest
-- @include lib/create_job
local now = now_ms()
local created36 = to36(now)

-- The job of the eight arguments from ARGV[i]: due ms, priority, state, record.
local function new_job(i, ttr36)
  local due, mode = tonumber(ARGV[i + 4]), ARGV[i + 3]
  local priority = (#mode > 1) and tonumber(string.sub(mode, 2)) or DEFAULT_PRIORITY
  if string.byte(mode, 1) == 100 then -- 'd': a delay
    due = now + due
  end
  local state = (due <= now) and 'R' or 'D'
  return due, priority, state,
    new_record(state .. priority_letter(priority), ARGV[i + 6], ttr36, created36, to36(due - now), ARGV[i + 2])
end

-- One job that replaces nothing: created, or found to exist.
if #ARGV == 10 and ARGV[10] ~= '1' then
  local jobkey = ARGV[3]
  local due, priority, state, record = new_job(3, to36(tonumber(ARGV[8])))
  local created, head = create_job(jobkey, ARGV[4], state, record, due, priority)
  if created == 0 then
    local old = readable(jobkey, redis.call('HGET', KEYS[1], jobkey))
    return { now, 0, 0, old.state, old.due }
  end
  return { now, head, 1, state, due }
end

local ttr36 = {}
local reply = { now, 0 }
local _, before = lowest(P .. 'delayed')

local jobkeys = pick(ARGV, 3, 8)
-- the jobs that exist already (an unreadable record refuses the call)
local found = read_many(KEYS[1], jobkeys)
local existing = {}
for k, jobkey in ipairs(jobkeys) do
  if found[k] and existing[jobkey] == nil then
    existing[jobkey] = readable(jobkey, found[k])
  end
end

-- what the call does, worked out before the first write
local current = {}   -- job key -> the job as this call leaves it so far: { state, due, record, number }
local order = {}     -- job keys created by this call, in the order of their first creation
local replaced = {}  -- existing jobs this call replaces: { job key, topic, job }
for i = 3, #ARGV, 8 do
  local jobkey, topic = ARGV[i], ARGV[i + 1]
  local number = (i - 3) / 8 + 1
  local n = #reply
  local mine = current[jobkey]
  local old = existing[jobkey]
  if (mine or old) and ARGV[i + 7] ~= '1' then
    local kept = mine or old
    reply[n + 1], reply[n + 2], reply[n + 3] = 0, kept.state, kept.due
  else
    if mine then
      -- replaces a job this call created: only the new one is written
      count(mine.state, topic, -1)
    elseif old then
      replaced[#replaced + 1] = { jobkey, topic, old }
      existing[jobkey] = nil
    end
    if not mine then
      order[#order + 1] = jobkey
    end
    local ttr = ARGV[i + 5]
    ttr36[ttr] = ttr36[ttr] or to36(tonumber(ttr))
    local due, priority, state, record = new_job(i, ttr36[ttr])
    current[jobkey] = { state = state, due = due, topic = topic, number = number, priority = priority, record = record }
    count(state, topic, 1)
    reply[n + 1], reply[n + 2], reply[n + 3] = 1, state, due
  end
end

-- writes: the replaced jobs leave their indexes, then the new records and their entries
local errors = {}
for _, r in ipairs(replaced) do
  unlink(r[1], r[2], r[3])
  errors[#errors + 1] = r[1]
end
call_many('HDEL', P .. 'errors', errors)
local w = gathered()
local delayed, placed = {}, {}
for _, jobkey in ipairs(order) do
  local job = current[jobkey]
  gather_record(w, jobkey, job.record)
  if job.state == 'D' then
    delayed[#delayed + 1] = num(job.due)
    delayed[#delayed + 1] = jobkey
    placed[jobkey] = job.number
  else
    gather_entry(w, job.topic, jobkey, job.priority)
  end
end
call_many('ZADD', P .. 'delayed', delayed)
write_gathered(w)
local head, at = lowest(P .. 'delayed')
if head and placed[head] and (before == nil or at < before) then
  announce_head(at)
  reply[2] = placed[head]
end
return reply
