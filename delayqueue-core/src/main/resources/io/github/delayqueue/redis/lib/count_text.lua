-- A count that is usually 0 (attempt, token): empty when 0.
-- @include lib/num
local function count_text(x)
  return (x == 0) and '' or num(x)
end
