-- A member's progress and whether it is idle; the answer says whether
-- the whole crawl is over.
-- KEYS[1] members, KEYS[2] owner, KEYS[3] idle, KEYS[4] stats, KEYS[5]
-- progress (hash: member -> JSON)
-- ARGV[1] member, ARGV[2] "1" idle (nothing queued, outstanding or held,
-- no partition handed over), ARGV[3] its progress, ARGV[4] partitions
-- Returns 1 when it is over: said before, or now every live member is
-- idle, every partition is held by a live member, and every link sent
-- to a stream was read (stats sent = recv: read.lua counts in the step
-- that reads, and makes the reader not idle in it).
if redis.call('HGET', KEYS[4], 'done') == '1' then return 1 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[3])
if ARGV[2] ~= '1' then return 0 end
local alive = live_set(KEYS[1], now_ms())
for m in pairs(alive) do
  if redis.call('HGET', KEYS[3], m) ~= '1' then return 0 end
end
local s = redis.call('HMGET', KEYS[4], 'sent', 'recv')
if (tonumber(s[1]) or 0) ~= (tonumber(s[2]) or 0) then return 0 end
local all = redis.call('HGETALL', KEYS[2])
if #all / 2 < tonumber(ARGV[4]) then return 0 end
for i = 2, #all, 2 do
  if not alive[owner_parse(all[i])] then return 0 end
end
redis.call('HSET', KEYS[4], 'done', '1')
return 1
