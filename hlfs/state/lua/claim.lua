-- wpfs: flags allow-oom
-- Claim up to max requests of one shard for this replica, atomically.
-- KEYS[1] h:{N}
-- ARGV    {N}, max, lease_ms, token_prefix, reap_max, max_attempts,
--         results_maxlen, idle_ms, scan_clients, ahead_us
-- First reaps up to reap_max expired leases: the request in flight goes
-- back to its queue with one more attempt, or, past max_attempts, is
-- published as "abandoned" (to its waiters too). Then, while claims are wanted: clients in
-- virtual-time order (start-time fair queuing; vt:{N} holds each backlogged
-- client's finish tag); the first one with a due site gets its best
-- request there (highest priority, then oldest), the site's lease, and a
-- finish tag advanced by 1/weight. The same URL queued at the site by
-- other clients leaves their queues to wait for this claim's result
-- (coalescing: one fetch for all). A site is due when its next allowed
-- time is within ahead_us of the clock: its claim says how long is left
-- (hold_us), and the fetcher holds the request that long (llfs hold_us).
-- Returns { now, wake_in_us (-1: nothing scheduled; from this call's
--           clock to the next due time, exact to the microsecond), reaped, abandoned,
--           skipped, claim... } with each claim
--         { site, client, url, score, token, request_id, error_streak,
--           lease_until, waiters, the waiters' smallest max_age code (511
--           when none), follow record (lib.lua; '' when none), hold_us, the
--           site's local_due (lib.lua's polite; '' when none) }.
-- wpfs: uses lib.lua
local max, lease = tonumber(ARGV[2]), tonumber(ARGV[3])
local prefix, reap_max, max_att = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local xmax, idle_ms, scan = ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])
local ahead = tonumber(ARGV[10])
local now = now_ms()
local NOW, SCAN_LAST = I(now), I(scan - 1)
-- the due test is to the microsecond (lib.lua's us and DU)
local DUE_US = NOW_US + ahead
local DUE_S = I(DUE_US)
-- follow records are made by submissions only: none now, none in this call
local has_fr = redis.call('EXISTS', FR) == 1
local V = tonumber(redis.call('HGET', HK, 'V') or '0')
local reaped, abandoned, skipped = 0, 0, 0
-- Clients whose due sites were promoted in this call. The clock stands
-- still during a call, so a second promote finds nothing new, unless a
-- reap put a site back (due now): reap forgets them all.
local promoted = {}
local function reap(site)
  promoted = {}
  local sk = key('s', site)
  local f = redis.call('HMGET', sk, 'lt', 'ic', 'iu', 'is', 'na')
  redis.call('ZREM', LZ, site)
  if not f[1] then return end
  redis.call('HDEL', sk, 'lt', 'le', 'ic', 'iu', 'is', 'ia')
  local na = tonumber(f[5]) or 0
  if na < now then na = now end
-- a robots.txt hop's lease (lua_hop_take) carries no request
  if not f[2] then settle(site, na, now, idle_ms) return end
  local c, m, sc = f[2], f[3], tonumber(f[4])
  if attempts(sc) + 1 >= max_att then
    local url, fields = url_of(site, m), {'o', 'abandoned'}
    publish_own(c, sc, url, fields, xmax, false, has_fr)
    redis.call('HINCRBY', key('cl', c), 'n', '-1')
    serve_waiters(site, m, url, rid(sc), fields, 0, xmax)
    abandoned = abandoned + 1
  else
    requeue(site, c, m, sc + 512)
    reaped = reaped + 1
  end
  settle(site, na, now, idle_ms)
end
-- sites of client c whose time has come move from cd (by time) to cr (by
-- the score of the client's best request there)
local function promote(c)
  if promoted[c] then return end
  local cd, cr = key('cd', c), key('cr', c)
  local due = redis.call('ZRANGEBYSCORE', cd, '-inf', DUE_S, 'LIMIT', '0', '128')
  for _, site in ipairs(due) do
    redis.call('ZREM', cd, site)
    local h = redis.call('ZRANGE', qkey(site, c), '0', '0', 'WITHSCORES')
    if h[1] then redis.call('ZADD', cr, h[2], site) end
  end
-- a full page may have left more: looked at again next time
  promoted[c] = #due < 128
end
-- A client's weight, read once per call (only a submission changes it).
-- vt: c's finish tag as claim_one read it from vt:{N} in this call (no
-- step between that read and the charge changes c's entry).
local weights = {}
local function charge(c, vt)
  local ck = key('cl', c)
  local w = weights[c]
  if not w then
    w = tonumber(redis.call('HGET', ck, 'w') or '1')
    weights[c] = w
  end
  local start = tonumber(vt)
  if start < V then start = V end
  V = start
-- formatted once, for both (a Lua number argument would be formatted by
-- Redis for each command: lib.lua's I)
  local fin = string.format('%.17g', start + 1 / w)
-- while c is backlogged its tag is its score in vt:{N}; the hash keeps it
-- for when c comes back (lib.lua's backlog_add), written as c leaves
  if redis.call('HINCRBY', ck, 'qn', '-1') > 0 then redis.call('ZADD', VT, fin, c)
  else
    redis.call('ZREM', VT, c)
    redis.call('HSET', ck, 'f', fin)
  end
end
-- Other clients' requests for m at the site join the claim's waiters; the
-- claim must then satisfy the strictest max_age among them. Returns the
-- waiters' count and code, and the clients still queued at the site.
local function absorb(site, c, m)
  local wk = wkey(site, m)
  local left = {}
  for _, o in ipairs(redis.call('SMEMBERS', key('sc', site))) do
    local qo = qkey(site, o)
    local s = o ~= c and redis.call('ZSCORE', qo, m)
-- a request following redirects stays the leader of its own chain
    if s and follows(o, tonumber(s)) then s = false end
    if s then
      redis.call('ZREM', qo, m)
      redis.call('HSET', wk, o, s)
      unqueue(o)
-- still queued: re-indexed with the others below (the site is leased now)
      if redis.call('ZCARD', qo) > 0 then
        left[#left + 1] = o
      else
        redis.call('SREM', key('sc', site), o)
        redis.call('ZREM', key('cd', o), site)
        redis.call('ZREM', key('cr', o), site)
      end
    else
      left[#left + 1] = o
    end
  end
  local ws, code = redis.call('HVALS', wk), 511
  for _, s in ipairs(ws) do code = math.min(code, tonumber(s) % 512) end
  return #ws, code, left
end
local function try_claim(c, vt, site, i)
  local sk = key('s', site)
  redis.call('ZREM', key('cr', c), site)
  local f = redis.call('HMGET', sk, 'lt', 'le', 'na', 'es', 'hx', 'lo')
  if f[1] then
    if tonumber(f[2]) > now then
      skipped = skipped + 1
      site_index(site, tonumber(f[2]))
      return nil
    end
    reap(site)
  end
  local na = tonumber(f[3]) or 0
  if us(na) > DUE_US then site_index(site, na) return nil end
-- reserved for a robots.txt redirect hop (lua_hop_take)
  local hx = tonumber(f[5]) or 0
  if us(hx) > NOW_US then site_index(site, hx) return nil end
  local qk = qkey(site, c)
  local p = redis.call('ZPOPMIN', qk)
  if not p[1] then
    redis.call('SREM', key('sc', site), c)
    redis.call('ZREM', key('cd', c), site)
    return nil
  end
  local le = now + lease
  local token = prefix .. '.' .. i
  local les = I(le)
  redis.call('HSET', sk, 'lt', token, 'le', les, 'ic', c, 'iu', p[1], 'is', p[2], 'ia', NOW)
  redis.call('ZADD', LZ, les, site)
  if redis.call('ZCARD', qk) == 0 then
    redis.call('SREM', key('sc', site), c)
    redis.call('ZREM', key('cd', c), site)
  end
  local nw, wcode, left = absorb(site, c, p[1])
-- site_index(site, le) for the clients absorb left queued there; the
-- claimer's own entry in cr went at the top of this function
  for _, o in ipairs(left) do
    if o ~= c then redis.call('ZREM', key('cr', o), site) end
    redis.call('ZADD', key('cd', o), DU(le), site)
  end
  charge(c, vt)
  local fr = has_fr and redis.call('HGET', FR, c .. '|' .. rid(tonumber(p[2])))
-- the completion's own clock's next allowed time, while na is its (polite)
  local lo, lona = (f[6] or ''):match('^(.*)|(.*)$')
  if not lo or lona ~= f[3] then lo = '' end
  return { site, c, url_of(site, p[1]), p[2], token, rid(tonumber(p[2])), f[4] or '0', le,
           nw, wcode, fr or '', I(math.max(us(na) - NOW_US, 0)), lo }
end
local function claim_one(i)
  local cs = redis.call('ZRANGE', VT, '0', SCAN_LAST, 'WITHSCORES')
  for j = 1, #cs, 2 do
    local c = cs[j]
    promote(c)
    local top = redis.call('ZRANGE', key('cr', c), '0', '0')
    while top[1] do
      local r = try_claim(c, cs[j + 1], top[1], i)
      if r then return r end
      top = redis.call('ZRANGE', key('cr', c), '0', '0')
    end
  end
  return nil
end
-- In microseconds from this call's clock: the first lease to expire (it
-- is reaped then), the first due site less ahead_us (it is claimed then);
-- nil: neither.
local function wake_in()
  local w
  local h = redis.call('ZRANGE', LZ, '0', '0', 'WITHSCORES')
  if h[2] then w = us(tonumber(h[2])) - NOW_US end
  for _, c in ipairs(redis.call('ZRANGE', VT, '0', SCAN_LAST)) do
    local d = redis.call('ZRANGE', key('cd', c), '0', '0', 'WITHSCORES')
    if d[2] then
      local dw = tonumber(d[2]) - DUE_US
      if not w or dw < w then w = dw end
    end
  end
  return w
end
for _, site in ipairs(redis.call('ZRANGEBYSCORE', LZ, '-inf', NOW, 'LIMIT', '0', I(reap_max))) do
  reap(site)
end
local out = { now, -1, 0, 0, 0 }
-- the state changed under us (lua_fence): no claim before the fence
local fence = tonumber(redis.call('HGET', HK, 'fence') or '0')
if now < fence then max = 0 end
for i = 1, max do
  local r = claim_one(i)
  if not r then break end
  out[#out + 1] = r
end
redis.call('HSET', HK, 'V', V)
if now < fence then
  out[2] = fence * 1000 - NOW_US
elseif #out - 5 < max then
  local w = wake_in()
  if w then out[2] = math.max(w, 0) end
else
  out[2] = 0
end
out[3], out[4], out[5] = reaped, abandoned, skipped
return out
