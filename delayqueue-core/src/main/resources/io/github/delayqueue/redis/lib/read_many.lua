-- The values of many fields of a hash (HMGET), or with command 'ZMSCORE' the scores of many
-- members of a zset, read in chunks: a table with one entry per field, in order (false for a
-- missing one).
-- @include lib/chunk
local function read_many(key, fields, command)
  local values = {}
  for i = 1, #fields, CHUNK do
    local found = redis.call(command or 'HMGET', key, unpack(fields, i, math.min(#fields, i + CHUNK - 1)))
    for k = 1, #found do
      values[i + k - 1] = found[k]
    end
  end
  return values
end
