-- The sentinel naming the priorities of a set (priority -> true), or nil for none.
local function sentinel_text(set)
  local text = '^'
  for p = 9, 0, -1 do
    if set[p] then
      text = text .. p
    end
  end
  return (#text > 1) and text or nil
end
