-- The job of a record; an error naming the record when it is not in this format.
-- @include lib/decode
local function readable(jobkey, record)
  return decode(record) or error('delayqueue: the record of job ' .. jobkey .. ' in ' .. KEYS[1]
    .. ' is not in the format of this version (written by an earlier snapshot?): '
    .. string.sub(record, 1, math.min(#record, 60)))
end
