-- wpfs: flags allow-oom
-- Politeness per address (--addr-max-conns, --addr-min-gap-ms): the hosts
-- of one address (shared hosting) share its slots, each host keeping its
-- own delay and its one connection at a time on top.
-- KEYS[1] h:{N}
-- ARGV    {N}, op, addr, token, limit, gap_ms, lease_ms, busy_ms
--   "take": a slot for token when fewer than limit are held and gap_ms
--   has passed since the last slot was taken; returns 0, or the ms to
--   wait before asking again (the gap's rest, or busy_ms when all slots
--   are held).
--   "give": token's slot back; returns 1 if it held one.
-- A slot lapses lease_ms after it was taken: a replica that died holding
-- one blocks the address no longer than a site lease.
-- wpfs: uses lib.lua
local op, addr, token = ARGV[2], ARGV[3], ARGV[4]
local sk, gk = key('a', addr), key('ag', addr)
if op == 'give' then
  return redis.call('ZREM', sk, token)
end
local limit, gap = tonumber(ARGV[5]), tonumber(ARGV[6])
local lease, busy = tonumber(ARGV[7]), tonumber(ARGV[8])
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', sk, '-inf', I(now))
local next_at = tonumber(redis.call('GET', gk) or '0')
if next_at > now then return next_at - now end
if redis.call('ZCARD', sk) >= limit then return busy end
redis.call('ZADD', sk, I(now + lease), token)
redis.call('PEXPIRE', sk, I(lease))
if gap > 0 then redis.call('SET', gk, I(now + gap), 'PX', I(gap)) end
return 0
