-- The letter of a priority in a record ('' for the default).
-- @include lib/default_priority
local function priority_letter(p)
  return (p == DEFAULT_PRIORITY) and '' or string.char(97 + p)
end
