-- The values of many fields of a hash, read in chunks: a table with one entry per field, in
-- order (false for a missing field).
-- @include lib/chunk
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
