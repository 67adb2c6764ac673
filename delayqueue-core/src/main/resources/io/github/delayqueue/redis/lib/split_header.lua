-- A record's header (the text before its first '\n', or all of it without one) and where its
-- payload starts.
local function split_header(record)
  local nl = string.find(record, '\n', 1, true) or (#record + 1)
  return string.sub(record, 1, nl - 1), nl + 1
end
