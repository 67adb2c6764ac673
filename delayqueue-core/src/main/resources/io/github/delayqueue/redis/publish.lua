-- publish.lua: publishes ARGV[2], ARGV[3], ... on the channel ARGV[1]; no keys. Returns {how many}
-- (a table: ScriptRunner reads every reply as a list, which Jedis cannot make of an integer).
for i = 2, #ARGV do
  redis.call('PUBLISH', ARGV[1], ARGV[i])
end
return { #ARGV - 1 }
