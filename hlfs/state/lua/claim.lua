-- wpfs: flags allow-oom
-- Claim up to max requests of one shard for this replica, atomically.
-- KEYS[1] h:{N}
-- ARGV    {N}, max, lease_ms, token_prefix, reap_max, max_attempts,
--         results_maxlen, idle_ms, scan_clients, ahead_us
-- First reaps up to reap_max expired leases: the request in flight goes
-- back to its queue with one more attempt (noted in its retry record:
-- lib.lua), or, past its max_attempts (its own, else this one), is
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
-- the shard's virtual time and fence, read together (nothing this call
-- runs writes the fence); V is written back only when a charge moved it
local hv = redis.call('HMGET', HK, 'V', 'fence')
local V = tonumber(hv[1] or '0')
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
-- the attempt the lease was for, in the request's retry record
  local rec = redis.call('HGET', RA, ra_field(c, sc))
  if attempts(sc) + 1 >= ra_max(rec, max_att) then
    local url, fields = url_of(site, m), {'o', 'abandoned'}
    local al = ra_final(c, sc, rec or '\n', 'lease_expired,0,0', now)
    fields[3], fields[4] = 'al', al
    publish_own(c, sc, url, fields, xmax, false, has_fr)
    redis.call('HINCRBY', key('cl', c), 'n', '-1')
    serve_waiters(site, m, url, rid(sc), fields, 0, xmax)
    abandoned = abandoned + 1
  else
    ra_add(c, sc, rec, 'lease_expired,0,0', now, '1')
    requeue_leader(site, c, m, sc + 512)
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
  if not due[1] then promoted[c] = true return end
-- the first #due by rank are those read: one command removes them, and
-- one ZADD indexes them all (a command each cost a call each)
  redis.call('ZREMRANGEBYRANK', cd, '0', I(#due - 1))
  local add = {}
  for _, site in ipairs(due) do
    local h = redis.call('ZRANGE', qkey(site, c), '0', '0', 'WITHSCORES')
    if h[1] then add[#add + 1] = h[2]; add[#add + 1] = site end
  end
  if add[1] then redis.call('ZADD', cr, unpack(add)) end
-- a full page may have left more: looked at again next time
  promoted[c] = #due < 128
end
-- The first scan_clients entries of vt:{N} (client, tag, client, tag...),
-- read by claim_one and kept equal to Redis's by charge, so that a claim
-- does not read them again after each claim of the call; nil (or
-- VT_MOVES changed: lib.lua moved a client in or out) when they must be.
local vtl, vtl_moves
local function vt_head()
  if not vtl or vtl_moves ~= VT_MOVES then
    for c in pairs(PEND) do cl_flush(c) end
    vtl, vtl_moves = redis.call('ZRANGE', VT, '0', SCAN_LAST, 'WITHSCORES'), VT_MOVES
  end
  return vtl
end
-- Client c, at j in vtl (its tag at j + 1), got the tag fin (nil: it left
-- vt:{N}). The copy stays exact unless it held scan_clients entries and c
-- moved past the last (a client beyond the copy may be in the head now),
-- or c's tag equals another's (Redis orders those by name): nil then.
local function vt_moved(j, c, fin)
  if vtl_moves ~= VT_MOVES then vtl = nil return end
  local full = #vtl >= 2 * scan
  table.remove(vtl, j)
  table.remove(vtl, j)
-- c left: the client after a full copy's last is in the head now
  if not fin then
    if full then vtl = nil end
    return
  end
  local f, k = tonumber(fin), 1
  while k < #vtl do
    local s = tonumber(vtl[k + 1])
    if s == f then vtl = nil return end
    if s > f then break end
    k = k + 2
  end
  if full and k > #vtl then vtl = nil return end
  table.insert(vtl, k, c)
  table.insert(vtl, k + 1, fin)
end
-- A client's weight, read once per call (only a submission changes it),
-- with its qn (lib.lua's QN keeps it from then on).
-- vt: c's finish tag as claim_one read it from vt:{N} in this call (no
-- step between that read and the charge changes c's entry).
local weights = {}
local function charge(c, vt, j)
  local ck = key('cl', c)
  local w, q = weights[c], QN[c]
  if not w or not q then
    local h = redis.call('HMGET', ck, 'w', 'qn')
    w, q = tonumber(h[1] or '1'), tonumber(h[2] or '0')
    weights[c] = w
  end
  local start = tonumber(vt)
  if start < V then start = V end
  V = start
-- formatted once, for both (a Lua number argument would be formatted by
-- Redis for each command: lib.lua's I)
  local fin = string.format('%.17g', start + 1 / w)
-- while c is backlogged its tag is its score in vt:{N} (written with its
-- count by cl_flush); the hash keeps it for when c comes back (lib.lua's
-- backlog_add), written as c leaves
  q = q - 1
  QN[c] = q
  local p = PEND[c]
  if q > 0 then
    PEND[c] = { n = (p and p.n or 0) + 1, fin = fin }
    vt_moved(j, c, fin)
  else
    PEND[c] = nil
    redis.call('HINCRBY', ck, 'qn', I(-1 - (p and p.n or 0)))
    redis.call('ZREM', VT, c)
    redis.call('HSET', ck, 'f', fin)
    vt_moved(j, c, nil)
  end
end
-- Client o's request for m, if queued at the site, joins the waiters of
-- the claim (wk). Returns whether it joined, and whether o still has
-- requests queued there.
local function absorb_one(site, o, m, wk)
  local qo = qkey(site, o)
  local s = redis.call('ZSCORE', qo, m)
-- a request following redirects stays the leader of its own chain
  if not s or follows(o, tonumber(s)) then return false, true end
  redis.call('ZREM', qo, m)
  redis.call('HSET', wk, o, s)
  unqueue(o)
  if redis.call('ZCARD', qo) > 0 then return true, true end
  redis.call('SREM', key('sc', site), o)
  redis.call('ZREM', key('cd', o), site)
  redis.call('ZREM', key('cr', o), site)
  return true, false
end
-- Other clients' requests for m at the site join the claim's waiters; the
-- claim must then satisfy the strictest max_age among them. Returns the
-- waiters' count and code, and the other clients still queued at the site.
-- With none joining, the waiters are read only when the site's hash says
-- an earlier claim may have left some (wl: lib.lua's requeue_leader): a
-- command a page saved. (Waiters it would miss, left by an older version,
-- are served by the completion all the same, which sends one that wanted
-- a fresher copy than a stored one back to its queue: serve_waiters.)
local function absorb(site, c, m, wl)
  local wk = wkey(site, m)
  local left, joined = {}, false
  for _, o in ipairs(redis.call('SMEMBERS', key('sc', site))) do
    if o ~= c then
      local j, queued = absorb_one(site, o, m, wk)
      joined = joined or j
      if queued then left[#left + 1] = o end
    end
  end
  if not joined and not wl then return 0, 511, left end
  local ws, code = redis.call('HVALS', wk), 511
  for _, s in ipairs(ws) do code = math.min(code, tonumber(s) % 512) end
  return #ws, code, left
end
-- site has just left c's ready index (claim_one's ZPOPMIN); j: c's place
-- in vtl, vt its tag there
local function try_claim(c, vt, j, site, i)
  local sk = key('s', site)
  local f = redis.call('HMGET', sk, 'lt', 'le', 'na', 'es', 'hx', 'lo', 'wl')
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
  local token = prefix .. '.' .. NS(i)
  local les = I(le)
  redis.call('HSET', sk, 'lt', token, 'le', les, 'ic', c, 'iu', p[1], 'is', p[2], 'ia', NOW)
  redis.call('ZADD', LZ, les, site)
  if redis.call('ZCARD', qk) == 0 then
    redis.call('SREM', key('sc', site), c)
    redis.call('ZREM', key('cd', c), site)
  end
  local nw, wcode, left = absorb(site, c, p[1], f[7])
-- site_index(site, le) for the other clients absorb left queued there.
-- The claimer's own entry is in neither index while it holds the lease
-- (its ZPOPMIN took it out of cr): every end of a lease indexes the site
-- again for all its clients (lib.lua's settle: completion, abort,
-- robots_done, hop_free, the reaper here), and the reaper is woken by
-- lz:{N} (wake_in), so an entry at the lease's end would only be moved
-- again by the completion: one ZADD a page for nothing.
  for _, o in ipairs(left) do
    redis.call('ZREM', key('cr', o), site)
    redis.call('ZADD', key('cd', o), DU(le), site)
  end
  charge(c, vt, j)
  local fr = has_fr and redis.call('HGET', FR, c .. '|' .. rid(tonumber(p[2])))
-- the completion's own clock's next allowed time, while na is its (polite)
  local lo, lona = (f[6] or ''):match('^(.*)|(.*)$')
  if not lo or lona ~= f[3] then lo = '' end
  return { site, c, url_of(site, p[1]), p[2], token, rid(tonumber(p[2])), f[4] or '0', le,
           nw, wcode, fr or '', math.max(us(na) - NOW_US, 0), lo }
end
local function claim_one(i)
  local cs = vt_head()
  for j = 1, #cs, 2 do
    local c = cs[j]
    promote(c)
    local cr = key('cr', c)
    local top = redis.call('ZPOPMIN', cr)
    while top[1] do
      local r = try_claim(c, cs[j + 1], j, top[1], i)
      if r then return r end
      top = redis.call('ZPOPMIN', cr)
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
local fence = tonumber(hv[2] or '0')
if now < fence then max = 0 end
for i = 1, max do
  local r = claim_one(i)
  if not r then break end
  out[#out + 1] = r
end
for c in pairs(PEND) do cl_flush(c) end
if not hv[1] or V ~= tonumber(hv[1]) then redis.call('HSET', HK, 'V', V) end
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
