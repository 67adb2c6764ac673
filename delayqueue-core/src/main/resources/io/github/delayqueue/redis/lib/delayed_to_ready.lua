local HEADER_SHAPE = '^%u[a-eg-j]?%d*,%d+,%w+,%w+,%-?%w+,%d*$'
local HEADER_LINE = '^%u[a-eg-j]?%d*,%d+,%w+,%w+,%-?%w+,%d*\n'


-- The record of a DELAYED job as READY, or nil when it is no DELAYED record decode reads.
local function delayed_to_ready(record)
  -- a record with a payload is checked in place; one without is all header
  if string.byte(record, 1) == 68 and (string.find(record, HEADER_LINE)
      or (not string.find(record, '\n', 1, true) and string.find(record, HEADER_SHAPE))) then
    return 'R' .. string.sub(record, 2)
  end
  return nil
end
