-- The header's grammar; HEADER_SHAPE (delayed_to_ready) and READY_HEADER (live_entry) change with it.
-- @include lib/from36
-- @include lib/default_priority
-- @include lib/split_header
local HEADER = '^(%u)([a-eg-j]?)(%d*),(%d+),((%w+),(%w+),(%-?%w+)),(%d*)$'


-- The job of a record, or nil when the record is not in this format. j.times keeps the
-- "<ttr>,<createdAt>,<delay>" text for encode to reuse while those are unchanged.
local function decode(record)
  local header, body = split_header(record)
  local s, p, a, m, times, ttr, created, delay, token = string.match(header, HEADER)
  if not s then
    return nil
  end
  local j = { state = s, priority = (p == '') and DEFAULT_PRIORITY or (string.byte(p) - 97), letter = p,
    attempt = tonumber(a) or 0, marked = string.byte(a, 1) == 48, max = tonumber(m), ttr = tonumber(ttr, 36),
    created = tonumber(created, 36), token = tonumber(token) or 0, payload = string.sub(record, body),
    times = times }
  j.due = j.created + from36(delay)
  j.times_ttr, j.times_due, j.times_created = j.ttr, j.due, j.created
  return j
end
