-- wpfs: flags allow-oom
-- Give a claim back without an outcome (the replica is stopping, the
-- fetch could not start or no fetcher took it, a robots.txt answer was
-- lost): the request returns to its place with its attempts unchanged; the
-- site keeps its next allowed time, or, when charge_ms > 0 (it may have
-- been contacted), rests that long from now, with reason "fetcher_lost"
-- (or reason, when given: "address_busy" for a fetch its address's slots
-- put off).
-- KEYS[1] h:{N}
-- ARGV    {N}, site, token, idle_ms, charge_ms[, reason]
-- Returns 1, or 0 when the lease was already lost.
-- wpfs: uses lib.lua
local site, token = ARGV[2], ARGV[3]
local now = now_ms()
local f = release(site, token)
if not f then return 0 end
requeue_leader(site, f[2], f[3], tonumber(f[4]))
local na = tonumber(f[5]) or 0
local charge = tonumber(ARGV[5]) or 0
if charge > 0 and up(now) + charge > na then
  na = up(now) + charge
  redis.call('HSET', key('s', site), 'na', na, 'nr', ARGV[6] or 'fetcher_lost', 'la', now)
  redis.call('HDEL', key('s', site), 'lo')
end
if na < now then na = now end
settle(site, na, now, tonumber(ARGV[4]))
return 1
