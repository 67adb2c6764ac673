-- The record of a job just created (attempt 0, token 0): state with its priority letter, max
-- attempts as the decimal text the caller sent, ttr, createdAt and the delay already in base 36.
local function new_record(state, max_text, ttr36, created36, delay36, payload)
  return state .. ',' .. max_text .. ',' .. ttr36 .. ',' .. created36 .. ',' .. delay36 .. ',\n' .. payload
end
