local function num(x)
  return string.format('%.0f', x)
end
