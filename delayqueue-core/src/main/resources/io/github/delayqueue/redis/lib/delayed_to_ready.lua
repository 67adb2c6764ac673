-- @include lib/split_header
local HEADER_SHAPE = '^%u[a-eg-j]?%d*,%d+,%w+,%w+,%-?%w+,%d*$'


-- The record of a DELAYED job as READY, or nil when it is no DELAYED record decode reads.
local function delayed_to_ready(record)
  if string.byte(record, 1) == 68 and string.find(split_header(record), HEADER_SHAPE) then
    return 'R' .. string.sub(record, 2)
  end
  return nil
end
