-- the digits of base 36
local B36 = { [0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
  'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z' }


-- An integer in base 36 (lower case, '-' before a negative one).
local function to36(x)
  local negative = x < 0
  if negative then
    x = -x
  end
  local s = ''
  repeat
    local d = x % 36
    s = B36[d] .. s
    x = (x - d) / 36
  until x == 0
  return negative and ('-' .. s) or s
end
