-- wpfs: flags allow-oom
-- Politeness per address (--addr-max-conns, --addr-min-gap-ms): the hosts
-- of one address (shared hosting) share its slots, each host keeping its
-- own delay and its one connection at a time on top.
-- KEYS[1] h:{N}
-- ARGV    {N}, op, addr, token, limit, gap_ms, lease_ms, busy_ms
--   "take": a slot for token when fewer than limit are held and gap_ms
--   has passed since the last slot was taken; returns 0, or the ms to
--   wait before asking again: the gap's rest, or, all slots held, the
--   time the requests waiting before it should take (below).
--   "give": token's slot back; returns 1 if it held one.
-- A slot lapses lease_ms after it was taken: a replica that died holding
-- one blocks the address no longer than a site lease.
-- Waiting without a queue: each request put off is remembered (aw:, by
-- when it asked) and told to come back after its share of the wait,
-- hold x waiting / limit, where hold is the address's mean slot time
-- (ah:, a moving average of what give measures). A fixed retry period
-- had 200 hosts of one address ask 27 times per fetch; this asks about
-- as often as slots free up. busy_ms is the least wait.
-- wpfs: uses lib.lua
local op, addr, token = ARGV[2], ARGV[3], ARGV[4]
local sk, gk, wk, hk = key('a', addr), key('ag', addr), key('aw', addr), key('ah', addr)
local lease = tonumber(ARGV[7])
local now = now_ms()
if op == 'give' then
  local lapse = redis.call('ZSCORE', sk, token)
  if not lapse then return 0 end
  redis.call('ZREM', sk, token)
  local held = now - (tonumber(lapse) - lease)
  local avg = tonumber(redis.call('GET', hk) or held)
  redis.call('SET', hk, I(math.floor(avg * 0.8 + held * 0.2 + 0.5)), 'PX', I(lease))
  return 1
end
local limit, gap, busy = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[8])
redis.call('ZREMRANGEBYSCORE', sk, '-inf', I(now))
local next_at = tonumber(redis.call('GET', gk) or '0')
local full = redis.call('ZCARD', sk) >= limit
if next_at > now or full then
  redis.call('ZADD', wk, I(now), token)
  redis.call('PEXPIRE', wk, I(lease))
  local wait = next_at - now
  if full then
    redis.call('ZREMRANGEBYSCORE', wk, '-inf', I(now - lease))
    local hold = tonumber(redis.call('GET', hk) or busy)
    local share = math.floor(hold * redis.call('ZCARD', wk) / limit)
    if share > wait then wait = share end
    if wait < busy then wait = busy end
    if wait > lease then wait = lease end
  end
  return wait
end
redis.call('ZREM', wk, token)
redis.call('ZADD', sk, I(now + lease), token)
redis.call('PEXPIRE', sk, I(lease))
if gap > 0 then redis.call('SET', gk, I(now + gap), 'PX', I(gap)) end
return 0
