-- wpfs: flags allow-oom
-- Extend the leases this replica still holds.
-- KEYS[1] h:{N}
-- ARGV    {N}, lease_ms, then pairs: site, token
-- Returns one value per pair: 1 renewed, 0 lost (the token no longer holds
-- the site: it expired and was reaped; the fetch must stop).
-- wpfs: uses lib.lua
local lease = tonumber(ARGV[2])
local now = now_ms()
local out = {}
for j = 3, #ARGV - 1, 2 do
  local site, token = ARGV[j], ARGV[j + 1]
  local sk = key('s', site)
  local f = redis.call('HMGET', sk, 'lt', 'ic')
  if f[1] == token then
    local le = now + lease
    local les = I(le)
    redis.call('HSET', sk, 'le', les)
    redis.call('ZADD', LZ, les, site)
-- the other clients queued there are due at the new end
    site_index(site, le, f[2], true)
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
