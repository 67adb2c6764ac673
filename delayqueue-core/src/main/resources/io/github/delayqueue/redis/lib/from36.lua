local function from36(s)
  if string.byte(s, 1) == 45 then
    return -tonumber(string.sub(s, 2), 36)
  end
  return tonumber(s, 36)
end
