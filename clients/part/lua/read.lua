-- New links from the streams of the member's partitions, counted read in
-- the same step (the end of the crawl compares links sent and read).
-- KEYS[1] stats (hash: sent, recv, done), KEYS[2] idle (hash: member ->
-- 0/1), KEYS[3..] links:<p> streams
-- ARGV[1] group, ARGV[2] member (its consumer), ARGV[3] entries per stream
-- Returns XREADGROUP's answer ({} when nothing came). A member that read
-- something is not idle from this moment.
local args = { 'XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', ARGV[3], 'STREAMS' }
for i = 3, #KEYS do args[#args + 1] = KEYS[i] end
for _ = 3, #KEYS do args[#args + 1] = '>' end
local r = redis.call(unpack(args))
if not r then return {} end
local n = 0
for _, s in ipairs(r) do n = n + #s[2] end
if n > 0 then
  redis.call('HINCRBY', KEYS[1], 'recv', I(n))
  redis.call('HSET', KEYS[2], ARGV[2], '0')
end
return r
