-- The bucket's next timer events: the earliest due time of the delay queue and the earliest TTR
-- deadline of the reserved index (nil for an empty index).
-- @include lib/keys
-- @include lib/lowest
local function heads()
  local _, d = lowest(P .. 'delayed')
  local _, r = lowest(P .. 'reserved')
  return d, r
end
