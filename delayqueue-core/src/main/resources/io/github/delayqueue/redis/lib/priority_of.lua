-- The priority of a record, from the letter after its state (none: the default).
-- @include lib/default_priority
local function priority_of(record)
  local b = string.byte(record, 2)
  if b and b >= 97 and b <= 106 and b ~= 102 then -- 'a' to 'j', not 'f' (the default has none)
    return b - 97
  end
  return DEFAULT_PRIORITY
end
