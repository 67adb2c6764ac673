local SENTINEL = 94 -- '^', the first byte of a sentinel (no job key starts with it)


-- The priorities a sentinel names, highest first (nil for an entry that is not a sentinel).
local function sentinel_levels(entry)
  if not entry or string.byte(entry, 1) ~= SENTINEL then
    return nil
  end
  local levels = {}
  for i = 2, #entry do
    levels[#levels + 1] = string.byte(entry, i) - 48
  end
  return levels
end
