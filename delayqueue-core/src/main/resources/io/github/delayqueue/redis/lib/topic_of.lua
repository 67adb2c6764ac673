local function topic_of(jobkey)
  return string.match(jobkey, '^([^:]+):')
end
