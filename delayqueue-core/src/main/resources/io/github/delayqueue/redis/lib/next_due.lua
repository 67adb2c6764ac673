-- When the bucket's timer has work next (-1: no job waits).
-- @include lib/heads
-- @include lib/earlier
local function next_due()
  return earlier(heads())
end
