-- The topic of a job key ('<topic>:<id>'; a topic holds no ':'). The last topic found is kept: a
-- key of that topic is recognised by its prefix, without a pattern match.
local LAST_TOPIC, LAST_PREFIX
local function topic_of(jobkey)
  if LAST_PREFIX and string.find(jobkey, LAST_PREFIX, 1, true) == 1 then
    return LAST_TOPIC
  end
  local topic = string.match(jobkey, '^([^:]+):')
  if topic then
    LAST_TOPIC, LAST_PREFIX = topic, topic .. ':'
  end
  return topic
end
