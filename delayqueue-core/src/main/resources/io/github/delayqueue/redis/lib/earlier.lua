-- The earlier of the times d and r of heads; -1 when there is neither.
local function earlier(d, r)
  if d and r then
    return math.min(d, r)
  end
  return d or r or -1
end
