-- Every step-th item of a list from its first-th on: the members of a WITHSCORES reply (1, 2),
-- the job keys of a script's arguments when each job takes several.
local function pick(items, first, step)
  local picked = {}
  for i = first, #items, step do
    picked[#picked + 1] = items[i]
  end
  return picked
end
