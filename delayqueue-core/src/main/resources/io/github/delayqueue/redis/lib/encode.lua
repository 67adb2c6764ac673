-- @include lib/num
-- @include lib/to36
-- @include lib/count_text
-- @include lib/attempt_text
-- @include lib/priority_letter
local function encode(j)
  local times = j.times
  if not times or j.ttr ~= j.times_ttr or j.due ~= j.times_due or j.created ~= j.times_created then
    times = to36(j.ttr) .. ',' .. to36(j.created) .. ',' .. to36(j.due - j.created)
  end
  return j.state .. priority_letter(j.priority) .. attempt_text(j.attempt, j.marked) .. ',' .. num(j.max) .. ',' .. times .. ','
    .. count_text(j.token) .. '\n' .. j.payload
end
