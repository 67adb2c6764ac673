-- HEADER for a READY record with its '\n' (a record without one is left to decode).
-- @include lib/from36
-- @include lib/decode
local READY_HEADER = '^R([a-eg-j]?)(%d*),(%d+),((%w+),(%w+),(%-?%w+)),%d*()\n'


-- The job of a ready-list entry, or nil for a tombstone: record gone, not READY, unreadable, of
-- another priority than letter (the list's), or its job already in seen (which then holds it).
-- j.body is where the payload starts.
local function live_entry(jobkey, record, seen, letter)
  if seen[jobkey] or not record or string.byte(record, 1) ~= 82 then -- 82: 'R'
    return nil
  end
  local p, a, m, times, ttr, created, delay, nl = string.match(record, READY_HEADER)
  local j
  if p then
    if p ~= letter then
      return nil
    end
    created = tonumber(created, 36)
    j = { attempt = tonumber(a) or 0, marked = string.byte(a, 1) == 48, max = tonumber(m), max_text = m,
      times = times, letter = p,
      ttr = tonumber(ttr, 36), created = created, due = created + from36(delay), record = record,
      body = nl + 1 }
  else
    j = decode(record)
    if j and j.letter ~= letter then
      return nil
    end
  end
  if j then
    seen[jobkey] = true
  end
  return j
end
