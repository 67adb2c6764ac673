-- dead.lua: a page of a topic's DEAD jobs in the bucket, by time of death then job key.
-- ARGV[3] topic, ARGV[4] page size, ARGV[5] '1' for payloads, ARGV[6] the cursor's time of death
-- ('' from the oldest), ARGV[7] the cursor's job key.
-- Returns {DEAD jobs of the topic, then per job: job key and what find.lua answers after the
-- state (no payload: nil)}.
-- @include lib/keys
-- @include lib/decode
-- @include lib/pick
-- @include lib/read_many
-- @include lib/page_after
-- @include lib/put_info
local topic, max = ARGV[3], tonumber(ARGV[4])
local dead = P .. 'dead:' .. topic
local reply = { redis.call('ZCARD', dead) }
local entries = page_after(dead, max, (ARGV[6] ~= '') and tonumber(ARGV[6]) or nil, ARGV[7])
local jobkeys = pick(entries, 1, 2)
local records = read_many(KEYS[1], jobkeys)
local errors = read_many(P .. 'errors', jobkeys)
for k, jobkey in ipairs(jobkeys) do
  local j = records[k] and decode(records[k])
  if j then
    reply[#reply + 1] = jobkey
    put_info(reply, j, 0, tonumber(entries[2 * k]), errors[k] or '', ARGV[5] == '1')
  end
end
return reply
