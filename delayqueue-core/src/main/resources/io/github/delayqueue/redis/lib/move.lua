-- @include lib/count
local function move(topic, from, to)
  count(from, topic, -1)
  count(to, topic, 1)
end
