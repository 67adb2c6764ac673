-- The ready lists of a topic in the order a take reads them, from the first entry of its
-- first list: { key, priority letter, first index, priority } per list; only the first list
-- when that entry is no sentinel, else the higher priorities, the default one (after the
-- sentinel) and the lower ones.
-- @include lib/keys
-- @include lib/default_priority
-- @include lib/priority_letter
-- @include lib/ready_key
-- @include lib/sentinel_levels
local function ready_parts(topic, first)
  local default = { key = P .. 'ready:' .. topic, letter = '', from = 0, level = DEFAULT_PRIORITY }
  local levels = sentinel_levels(first)
  if not levels then
    return { default }, nil
  end
  default.from = 1
  local parts = {}
  for _, p in ipairs(levels) do
    if p < DEFAULT_PRIORITY and default then
      parts[#parts + 1] = default
      default = nil
    end
    parts[#parts + 1] = { key = ready_key(topic, p), letter = priority_letter(p), from = 0, level = p }
  end
  if default then
    parts[#parts + 1] = default
  end
  return parts, levels
end
