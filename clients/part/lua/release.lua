-- Partitions given back (after their snapshot, snap.lua).
-- KEYS[1] owner
-- ARGV[1] member, then partition and epoch pairs
-- Returns how many were still the member's with that epoch (the others
-- were taken after its lease ended, and stay with their new owner).
local n = 0
for i = 2, #ARGV, 2 do
  local m, e = owner_parse(redis.call('HGET', KEYS[1], ARGV[i]))
  if m == ARGV[1] and e == tonumber(ARGV[i + 1]) then
    redis.call('HDEL', KEYS[1], ARGV[i])
    n = n + 1
  end
end
return n
