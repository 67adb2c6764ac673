-- The earlier of the times d and r of heads; -1 when there is neither.
local function earlier(d, r)
  return (d and r) and math.min(d, r) or d or r or -1
end
