-- trimdead.lua: the bucket's side of a topic's failed-job retention (failed.lua).
-- ARGV[3] 'at': the job keys of topic ARGV[4]'s DEAD jobs that died at ARGV[5] ms (at most 20,000).
-- ARGV[3] 'drop': deletes DEAD jobs of topic ARGV[4], given per job: job key, time of death ms;
-- a job is deleted only while DEAD with that time. Returns {jobs deleted}.
-- @include lib/keys
-- @include lib/topic_of
-- @include lib/call_many
-- @include lib/read_many
-- @include lib/count
-- @include lib/forget
local topic = ARGV[4]
local dead = P .. 'dead:' .. topic

if ARGV[3] == 'at' then
  return redis.call('ZRANGEBYSCORE', dead, ARGV[5], ARGV[5], 'LIMIT', 0, 20000)
end

if ARGV[3] ~= 'drop' then
  return redis.error_reply('delayqueue: trimdead.lua has no operation ' .. tostring(ARGV[3]))
end
-- reads: the records and the times of death
local jobkeys, died = {}, {}
for i = 5, #ARGV, 2 do
  if topic_of(ARGV[i]) ~= topic then
    return redis.error_reply('delayqueue: trimdead.lua was given job key ' .. ARGV[i] .. ' of another topic than ' .. topic)
  end
  jobkeys[#jobkeys + 1] = ARGV[i]
  died[#died + 1] = tonumber(ARGV[i + 1])
end
local records = read_many(KEYS[1], jobkeys)
local drop = {}
for k, jobkey in ipairs(jobkeys) do
  -- 88: 'X', a DEAD record (the state is its first letter in every format this reads)
  if records[k] and string.byte(records[k], 1) == 88 and tonumber(redis.call('ZSCORE', dead, jobkey)) == died[k] then
    drop[#drop + 1] = jobkey
  end
end
-- writes
if #drop > 0 then
  call_many('ZREM', dead, drop)
  forget(drop)
  count('X', topic, -#drop)
end
return { #drop }
