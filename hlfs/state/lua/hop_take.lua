-- wpfs: flags allow-oom
-- A robots.txt redirect that leads to another site is fetched under that
-- site's lease, like one of its own requests, so that "one request in
-- flight per site" and its next allowed time hold for the hop too. The
-- lease carries no queued request (no ic/iu/is): a reaper that finds it
-- expired only releases it (lua_claim).
--
-- lua_hop_take
-- KEYS[1] h:{N} (the hop site's shard)
-- ARGV    {N}, site, token, lease_ms, max_wait_ms, hold_ms
-- Returns { 1, error_streak } when the lease was taken, { 0, wait_ms, 0 }
-- when the site is not due yet (until its next allowed time), { 0, 0, 1 }
-- when it is leased (a lease is renewed while its fetch lasts, so its end
-- says nothing: the caller asks again shortly). An expired lease is left
-- to the claim's reaper, which puts its request back.
-- A refused hop that will wait (the site is due within max_wait_ms, or is
-- leased) reserves the site: hr (token) and hx (until when: its next
-- allowed time + hold_ms, or now + hold_ms while leased). Claims skip a
-- reserved site (lua_claim), so a busy site's own queue cannot starve the
-- hop, which only asks every poll; a reservation whose hop went away ends
-- by itself at hx. One hop holds a site's reservation at a time.
-- wpfs: uses lib.lua
local site, token, lease = ARGV[2], ARGV[3], tonumber(ARGV[4])
local max_wait, hold = tonumber(ARGV[5]), tonumber(ARGV[6])
local now = now_ms()
local sk = key('s', site)
local f = redis.call('HMGET', sk, 'lt', 'le', 'na', 'es', 'hr', 'hx')
local hx = tonumber(f[6]) or 0
local mine = (not f[5]) or f[5] == token or us(hx) <= NOW_US
local na = tonumber(f[3]) or 0
if f[1] then
  if mine then redis.call('HSET', sk, 'hr', token, 'hx', now + hold) end
  return { 0, 0, 1 }
end
if us(na) > NOW_US then
  local wait = math.ceil((us(na) - NOW_US) / 1000)
  if mine and wait <= max_wait then redis.call('HSET', sk, 'hr', token, 'hx', MS(na + hold)) end
  return { 0, wait, 0 }
end
if not mine then return { 0, math.ceil((us(hx) - NOW_US) / 1000), 0 } end
local le = now + lease
redis.call('HDEL', sk, 'hr', 'hx')
redis.call('HSET', sk, 'lt', token, 'le', le, 'ia', now)
redis.call('PERSIST', sk)
redis.call('ZADD', LZ, le, site)
site_index(site, le)
return { 1, tonumber(f[4]) or 0 }
