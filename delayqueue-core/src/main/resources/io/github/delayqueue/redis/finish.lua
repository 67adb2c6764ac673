-- finish.lua: removes finished jobs (a stale token is left alone), then takes up to ARGV[3] READY
-- jobs of topic ARGV[5] (READY -> RESERVED); without jobs, a take alone. ARGV[4] ttr ms (0: each
-- job's own), ARGV[6] attempts limit (0: the job's own), ARGV[7] '0' keep nothing, '1' record
-- headers, '2' whole records; ARGV[8] this instance's number (lib/token); ARGV[9] latest Redis time
-- ms to take at (0: any); then job key and token per job.
-- Returns per job 1 (or its record when kept) | 0 no such job | -1 stale token; then when wanted
-- {ready entries left, now ms or 0, announced deadline or 0, 9 values per job (lib/apply_take)},
-- or {-1, now ms, 0} when too late to take; then when kept the finish time ms (0: none finished).
-- @include lib/keys
-- @include lib/now_ms
-- @include lib/split_header
-- @include lib/topic_of
-- @include lib/pick
-- @include lib/call_many
-- @include lib/read_many
-- @include lib/count
-- @include lib/forget
-- @include lib/refusal
-- @include lib/plan_take
-- @include lib/apply_take
local jobkeys = pick(ARGV, 10, 2)
local keep = ARGV[7] == '1' or ARGV[7] == '2'
local whole = ARGV[7] == '2'
local records = read_many(KEYS[1], jobkeys)
local reply = {}
local done, erring, seen = {}, {}, {}
for k, jobkey in ipairs(jobkeys) do
  local refused = seen[jobkey] and 0 or refusal(records[k], ARGV[9 + 2 * k])
  if refused then
    reply[k] = refused
  else
    seen[jobkey] = true
    done[#done + 1] = jobkey
    -- only a job past its first attempt, or replayed, may have a last error
    if not string.find(records[k], '^S[a-eg-j]?1,') then
      erring[#erring + 1] = jobkey
    end
    reply[k] = keep and (whole and records[k] or split_header(records[k])) or 1
  end
end
local plan = (tonumber(ARGV[3]) > 0) and plan_take(ARGV[5], tonumber(ARGV[3]), tonumber(ARGV[4])) or nil
local now = plan and plan.now or 0
local late = tonumber(ARGV[9]) > 0 and now > tonumber(ARGV[9])
local finished_at = 0
if keep and #done > 0 then
  finished_at = (now > 0) and now or now_ms()
end
-- writes
if #done > 0 then
  call_many('ZREM', P .. 'reserved', done)
  forget(done, erring)
  for _, jobkey in ipairs(done) do
    -- held jobs are RESERVED: removing them from the reserved index unlinks them
    count('S', topic_of(jobkey), -1)
  end
end
if plan then
  local n = #reply
  reply[n + 1], reply[n + 2], reply[n + 3] = late and -1 or 0, now, 0
  if not late then
    reply[n + 1], reply[n + 3] = apply_take(plan, tonumber(ARGV[4]), tonumber(ARGV[6]), tonumber(ARGV[8]), now, reply)
  end
end
if keep then
  reply[#reply + 1] = finished_at
end
return reply
