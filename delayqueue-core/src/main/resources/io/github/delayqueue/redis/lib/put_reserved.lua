-- Appends what a consumer gets of a job just reserved to a reply, 9 values: id, payload,
-- attempt, max attempts, due ms, created ms, token, deadline ms, ttr ms.
local function put_reserved(reply, id, j, deadline, ttr)
  local n = #reply
  reply[n + 1] = id
  reply[n + 2] = j.payload
  reply[n + 3] = j.attempt
  reply[n + 4] = j.max
  reply[n + 5] = j.due
  reply[n + 6] = j.created
  reply[n + 7] = j.token
  reply[n + 8] = deadline
  reply[n + 9] = ttr
end
