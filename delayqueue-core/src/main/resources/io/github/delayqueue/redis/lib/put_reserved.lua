-- Makes job j RESERVED at now (its next attempt, the token of reservation seq by holder, lib/token;
-- an override of 0 keeps the job's own ttr or max attempts) and appends what a consumer gets of it
-- to a reply, 9 values: id, payload, attempt, max attempts, due ms, created ms, token, deadline
-- ms, ttr ms. Returns the deadline and the ttr.
-- @include lib/token
local function put_reserved(reply, id, j, seq, holder, ttr_override, max_override, now)
  local ttr = (ttr_override > 0) and ttr_override or j.ttr
  j.state = 'S'
  j.attempt = j.attempt + 1
  j.token = token(seq, holder)
  if max_override > 0 then
    j.max = max_override
  end
  local n = #reply
  reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4], reply[n + 5] = id, j.payload, j.attempt, j.max, j.due
  reply[n + 6], reply[n + 7], reply[n + 8], reply[n + 9] = j.created, j.token, now + ttr, ttr
  return now + ttr, ttr
end
