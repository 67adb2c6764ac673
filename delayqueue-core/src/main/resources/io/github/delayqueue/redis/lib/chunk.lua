-- The most values one command takes from unpack (Lua's limit is near 8,000).
local CHUNK = 1000
