-- Whether a record is RESERVED under the caller's fencing token, reading only the record's
-- first letter and the token at the end of its first line. Returns the reply for a record that
-- is not: 0 for no record, -1 for another state or token; nil when it is.
local function refusal(record, token)
  if not record then
    return 0
  end
  local nl = string.find(record, '\n', 1, true)
  -- compared in place: the token must start right after a ',' and end at the '\n'
  local at = nl and nl - #token
  if string.byte(record, 1) ~= 83 or not nl or string.byte(record, at - 1) ~= 44
      or string.find(record, token, at, true) ~= at then
    return -1
  end
  return nil
end
