-- A partition's snapshot, fenced by the owner's epoch, and the links its
-- stream gave before it acknowledged (they are in the snapshot now).
-- KEYS[1] owner, KEYS[2] snap:<p>, KEYS[3] links:<p>, KEYS[4] members
-- ARGV[1] member, ARGV[2] partition, ARGV[3] epoch, ARGV[4] the snapshot
-- ("": none, only acknowledge), ARGV[5] the group, ARGV[6..] entry ids
-- Returns 1; the error FENCED, with nothing written, when the member does
-- not hold the partition with that epoch and a lease running: another
-- member may own it now, and only its snapshots count.
local m, e = owner_parse(redis.call('HGET', KEYS[1], ARGV[2]))
local x = tonumber(redis.call('ZSCORE', KEYS[4], ARGV[1]))
if m ~= ARGV[1] or e ~= tonumber(ARGV[3]) or not x or x < now_ms() then
  return redis.error_reply('FENCED partition ' .. ARGV[2] .. ' is not held with epoch ' .. ARGV[3])
end
if ARGV[4] ~= '' then redis.call('SET', KEYS[2], ARGV[4]) end
if #ARGV >= 6 then
  redis.call('XACK', KEYS[3], ARGV[5], unpack(ARGV, 6))
  redis.call('XDEL', KEYS[3], unpack(ARGV, 6))
end
return 1
