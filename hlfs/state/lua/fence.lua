-- wpfs: flags allow-oom
-- wpfs: uses lib.lua
-- Hold every claim of the shard: the state Redis changed under the
-- gateways (a failover to a replica, a restart), and its last writes may
-- be lost, leases and next allowed times among them.
-- With a roll call (run_id not ''): the replicas named, alive when the
-- server changed, each write their recent politeness writes again
-- (lua_reapply) and answer; the fence lifts once every one has (it
-- holds at most hold_ms). The roll is per server (run_id): a replica that
-- answered is not called again for the same server.
-- Without one (a replica that does not know the fleet): the fence holds
-- hold_ms, until every lease taken before has expired and every next
-- allowed time lost has passed (hold_ms >= lease_ms + the longest delay),
-- and no roll call lifts it sooner (fh). lua_claim reads the fence.
-- KEYS[1] h:{N}
-- ARGV    {N}, hold_ms, run_id, replica... (no replica: no roll call)
-- Returns the fence (ms, Redis clock); now when already lifted.
local now = now_ms()
local hold = tonumber(ARGV[2])
local run = ARGV[3] or ''
local fence = now + hold
local cur = tonumber(redis.call('HGET', HK, 'fence') or '0')
if cur > fence then fence = cur end
if run == '' or #ARGV < 4 then
  local fh = tonumber(redis.call('HGET', HK, 'fh') or '0')
  if now + hold > fh then redis.call('HSET', HK, 'fh', I(now + hold)) end
  redis.call('HSET', HK, 'fence', I(fence))
  return fence
end
local RW, RD = key('fw', ''), key('fd', '')
if redis.call('HGET', HK, 'fe') ~= run then
  redis.call('DEL', RW, RD)
  redis.call('HSET', HK, 'fe', run)
end
for i = 4, #ARGV do
  if redis.call('SISMEMBER', RD, ARGV[i]) == 0 then redis.call('SADD', RW, ARGV[i]) end
end
if redis.call('SCARD', RW) == 0 then
  return fence_lift(now)
end
redis.call('PEXPIRE', RW, I(hold))
redis.call('PEXPIRE', RD, I(hold))
redis.call('HSET', HK, 'fence', I(fence))
return fence
