-- wpfs: flags allow-oom
-- A robots.txt fetch made under a request's lease is over: store the
-- record of its origin, charge the site's politeness for the request it
-- cost, and put the request that was waiting for it back at the head of its
-- queue (same score: its place and attempts are unchanged).
-- KEYS[1] h:{N}
-- ARGV    {N}, site, token, contacted (0; else 1 + the connections it
--         opened: lib.lua's conns), delay_us, reason, error_streak,
--         backoff (0/1), response_ms, local_due (lib.lua's polite), idle_ms, origin, status, body,
--         crawl_delay_ms, ttl_ms, retry_ms (0: none), keep_ms, good_at,
--         outage_since, robots_error_streak, hops, final_url, cause,
--         cause_status, cause_detail
-- The record r:{N}<origin> holds st, b (the last good copy), cd, fa
-- (fetched at), ea (expires at = fa + ttl), ra (retry at, when set), the
-- policy state ga (good at), os (outage since), ec (errors in a row), and
-- after redirects rh (hops) and ru (the URL that answered), and when it
-- is unreachable xo, xs, xd (the cause: the fetch's outcome, HTTP status
-- and text, given to the requests it refuses); it expires
-- keep_ms after ea. Returns { 1, next_at, now } or { 0 } when the lease
-- was lost (the record is then not stored: whoever holds the site now
-- decides).
-- wpfs: uses lib.lua
local site, token = ARGV[2], ARGV[3]
local now = now_ms()
local f = release(site, token)
if not f then return { 0 } end
local na = tonumber(f[5]) or 0
local ct = tonumber(ARGV[4])
if ct > 0 then
  na = polite(site, now, tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9], f[6], ARGV[10])
end
conns(site, ct, f[7])
local rk = key('r', ARGV[12])
local ea = now + tonumber(ARGV[16])
-- the record is written whole by one HSET (a command each was up to five
-- a robots.txt fetch), times as text (lib.lua's I)
local rf = { 'st', ARGV[13], 'b', ARGV[14], 'cd', ARGV[15], 'fa', I(now), 'ea', I(ea),
             'ga', ARGV[19], 'os', ARGV[20], 'ec', ARGV[21] }
local function rf_add(k, v) rf[#rf + 1] = k; rf[#rf + 1] = v end
if tonumber(ARGV[17]) > 0 then rf_add('ra', I(now + tonumber(ARGV[17]))) end
if tonumber(ARGV[22]) > 0 then rf_add('rh', ARGV[22]); rf_add('ru', ARGV[23]) end
if ARGV[24] ~= '' then rf_add('xo', ARGV[24]); rf_add('xs', ARGV[25]); rf_add('xd', ARGV[26]) end
redis.call('DEL', rk)
redis.call('HSET', rk, unpack(rf))
redis.call('PEXPIREAT', rk, I(ea + tonumber(ARGV[18])))
requeue_leader(site, f[2], f[3], tonumber(f[4]))
settle(site, na, now, tonumber(ARGV[11]))
return { 1, math.ceil(na), now }
