-- An integer as text; '%d' formats an integral x exactly and faster than '%.0f', which is kept for any
-- other number.
local function num(x)
  if x % 1 == 0 and x > -9e15 and x < 9e15 then
    return string.format('%d', x)
  end
  return string.format('%.0f', x)
end
