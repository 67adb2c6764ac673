-- A whole number argument, or an error naming it (raised before anything is written).
local function whole_number(i)
  local n = tonumber(ARGV[i])
  if not n or n < 0 or n ~= math.floor(n) then
    error('delayqueue: argument ' .. i .. ' of a topic script must be a whole number, was ' .. tostring(ARGV[i]))
  end
  return n
end
