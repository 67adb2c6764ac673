-- Appends what find.lua answers of a job after its state to a reply and returns the reply, 10
-- values: attempt, max attempts, ttr ms, due ms, created ms, reserved until ms or 0, died at ms
-- or 0, last error or '', payload (false unless payload), priority.
local function put_info(reply, j, deadline, died, err, payload)
  local n = #reply
  reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5] = j.attempt, j.max, j.ttr, j.due, j.created
  reply[n + 6], reply[n + 7], reply[n + 8] = deadline, died, err
  reply[n + 9], reply[n + 10] = payload and j.payload, j.priority
  return reply
end
