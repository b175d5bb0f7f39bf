-- wpfs: flags allow-oom
-- wpfs: uses lib.lua
-- Hold every claim of the shard until now + hold_ms (or a later fence
-- already set): the state Redis changed under the gateways (a failover to
-- a replica, a restart), and its last writes may be lost, leases and next
-- allowed times among them. By then every lease taken before has expired
-- and every next allowed time lost has passed (hold_ms >= lease_ms + the
-- longest delay). lua_claim reads the fence.
-- KEYS[1] h:{N}
-- ARGV    {N}, hold_ms
-- Returns the fence (ms, Redis clock).
local fence = now_ms() + tonumber(ARGV[2])
local cur = tonumber(redis.call('HGET', HK, 'fence') or '0')
if cur > fence then return cur end
redis.call('HSET', HK, 'fence', fence)
return fence
