-- wpfs: flags allow-oom
-- A robots.txt redirect that leads to another site is fetched under that
-- site's lease, like one of its own requests, so that "one request in
-- flight per site" and its next allowed time hold for the hop too. The
-- lease carries no queued request (no ic/iu/is): a reaper that finds it
-- expired only releases it (lua_claim).
--
-- lua_hop_free
-- KEYS[1] h:{N}
-- ARGV    {N}, site, token, contacted (0; else 1 + the connections it
--         opened: lib.lua's conns), delay_us, reason, error_streak,
--         backoff (0/1), response_ms, local_due (lib.lua's polite), idle_ms
-- Returns 1, or 0 when the token no longer held the lease.
-- wpfs: uses lib.lua
local site, token = ARGV[2], ARGV[3]
local now = now_ms()
local f = release(site, token)
if not f then return 0 end
local na = tonumber(f[5]) or 0
local ct = tonumber(ARGV[4])
if ct > 0 then
  na = polite(site, now, tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9], f[6], ARGV[10])
end
conns(site, ct, f[7])
if na < now then na = now end
settle(site, na, now, tonumber(ARGV[11]))
return 1
