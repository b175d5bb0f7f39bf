-- wpfs: flags allow-oom
-- Finish a claimed request: release the lease (only if the token still
-- holds it), set the site's next allowed time and its reason, publish the
-- result to the client's stream and to the other clients' requests that
-- waited for the same URL (coalesced), re-index the site for its clients.
-- KEYS[1] h:{N}
-- ARGV    {N}, site, token, contacted (0; else 1 + the connections it
--         opened: lib.lua's conns), delay_us, reason, error_streak,
--         backoff (0/1), response_ms, local_due (lib.lua's polite), results_maxlen, idle_ms, need (the
--         smallest max_age code the result satisfies: 0 unless it is a
--         stored copy), mode ('p' publish; 'f' publish, and the claim
--         handed a follow record; 'h' a redirect hop was queued for the
--         request instead: publish to its waiters only), retry ('0'
--         final; 'r' a transient failure: the request goes back to its
--         queue with one more attempt while its maximum allows; 'l' the
--         fetcher was lost: back to its queue, no attempt counted, while
--         its losses are below lost_max), max_attempts (the gateway's:
--         a request's own, in ra:, wins), lost_max, this attempt
--         ("outcome,status,ms": lib.lua's retry records), then result
--         field/value pairs for the stream entry (to which it adds 'sn',
--         the site's connections count after the fetch, when it has one)
-- Returns { 1, next_at, now, stream_entry_id (false when not published),
-- waiters served, waiters requeued } or { 0 } when the lease was lost
-- (expired and reaped: the request belongs to another claim now, and
-- this result is dropped), or { 2, next_at, now } when the request went
-- back to its queue to be tried again (its waiters wait on).
-- wpfs: uses lib.lua
local site, token = ARGV[2], ARGV[3]
local now = now_ms()
local f = release(site, token)
if not f then return { 0 } end
local c, m, sc = f[2], f[3], tonumber(f[4])
local na = tonumber(f[5]) or 0
local ct = tonumber(ARGV[4])
if ct > 0 then
  na = polite(site, now, tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9], f[6], ARGV[10])
end
local cn = conns(site, ct, f[7])
local retry, entry = ARGV[15], ARGV[18]
local rec = redis.call('HGET', RA, ra_field(c, sc))
if (retry == 'r' and attempts(sc) + 1 < ra_max(rec, tonumber(ARGV[16])))
   or (retry == 'l' and ra_lost(rec) < tonumber(ARGV[17])) then
  ra_add(c, sc, rec, entry, now, retry == 'r' and '1' or '0')
  requeue_leader(site, c, m, retry == 'r' and sc + 512 or sc)
  if na < now then na = now end
  settle(site, na, now, tonumber(ARGV[12]))
  return { 2, math.ceil(na), now }
end
redis.call('HINCRBY', key('cl', c), 'n', '-1')
local fields = {}
for j = 19, #ARGV do fields[#fields + 1] = ARGV[j] end
local al = ra_final(c, sc, rec, rec and entry, now, retry == 'l' and '0' or '1')
if al then fields[#fields + 1] = 'al'; fields[#fields + 1] = al end
if ct > 0 or cn > 0 then fields[#fields + 1] = 'sn'; fields[#fields + 1] = I(cn) end
local url = url_of(site, m)
local id = publish_own(c, sc, url, fields, ARGV[11], ARGV[14] == 'h', ARGV[14] ~= 'p')
local served, back = serve_waiters(site, m, url, rid(sc), fields, tonumber(ARGV[13]), ARGV[11])
settle(site, na, now, tonumber(ARGV[12]), c)
return { 1, math.ceil(na), now, id, served, back }
