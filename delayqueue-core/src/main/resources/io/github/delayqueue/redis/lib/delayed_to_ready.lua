-- @include lib/split_header
local HEADER_SHAPE = '^%u[a-eg-j]?%d*,%d+,%w+,%w+,%-?%w+,%d*$'


-- The record of a DELAYED job as READY, or nil when the record is not a DELAYED job's one that
-- decode reads. Only the state letter changes, so the header's shape is checked and nothing
-- is decoded: a fraction of the time of decode and encode, in every promotion.
local function delayed_to_ready(record)
  if string.byte(record, 1) == 68 and string.find(split_header(record), HEADER_SHAPE) then
    return 'R' .. string.sub(record, 2)
  end
  return nil
end
