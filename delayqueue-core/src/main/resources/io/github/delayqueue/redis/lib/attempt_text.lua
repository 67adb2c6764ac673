-- The text of an attempt: count_text's, after a '0' for a replayed job (see the record format).
-- @include lib/count_text
local function attempt_text(attempt, marked)
  return (marked and '0' or '') .. count_text(attempt)
end
