-- The shard's names, set at the start of each call (lib_begin): KEYS[1]
-- h:{N}, ARGV[1] {N}. The library is loaded once and its functions called
-- many times (mk/lua2c.sh); only these change from call to call.
local T, HK, LZ, VT, FR, RA
-- lua_claim's charges not written yet, by client: { n = claims, fin =
-- finish tag }; and QN, a client's qn as this call last read or wrote it,
-- less those claims. A claim of many charges a client once in Redis, not
-- once per claim (two commands a page); whatever reads or writes a
-- client's qn or tag writes its charges first (cl_flush).
local PEND, QN = {}, {}
local function lib_begin(keys, args)
  T, HK = args[1], keys[1]
  LZ, VT, FR, RA = 'lz:' .. T, 'vt:' .. T, 'fr:' .. T, 'ra:' .. T
  PEND, QN = {}, {}
end
local function key(p, s) return p .. ':' .. T .. s end
local function qkey(site, c) return 'q:' .. T .. site .. '|' .. c end
-- An integer as the text redis.call is given. A Lua number argument is
-- formatted by Redis with "%.17g", printf's float path: about 10 % of the
-- state Redis's CPU when every score, time and count went that way
-- (docs/benchmarks.md). Constants are written as text.
local function I(x) return string.format('%d', x) end
-- The text of a small count (a claim's place in its call, attempts),
-- made once for the library's life rather than by a printf each time.
local SMALL = {}
local function NS(n)
  local s = SMALL[n]
  if not s then
    s = I(n)
    if n >= 0 and n <= 1024 then SMALL[n] = s end
  end
  return s
end
local TIME_US = 0
-- the same instant in microseconds (below 2^53: exact in a Lua number)
local NOW_US = 0
local function now_ms()
  local t = redis.call('TIME')
  TIME_US = tonumber(t[2])
  NOW_US = tonumber(t[1]) * 1000000 + TIME_US
  return tonumber(t[1]) * 1000 + math.floor(TIME_US / 1000)
end
-- now_ms of the same instant rounded up: a next_at computed from it is
-- never early by a fraction of a millisecond
local function up(now) if TIME_US % 1000 > 0 then return now + 1 end return now end
-- A next allowed time (a site's na) is in milliseconds to the
-- microsecond: rounded up to the millisecond it left each site waiting
-- 0.5 ms on average beyond its delay. Written as text with three
-- decimals; read back, it is the double nearest that decimal, and
-- comparisons with the clock go through us(), in whole microseconds, so
-- the due test and the wake-up agree exactly.
local function MS(x)
  if x % 1 == 0 then return I(x) end
  return string.format('%.3f', x)
end
local function us(ms) return math.floor(ms * 1000 + 0.5) end
-- The due index cd: scores sites in whole microseconds, not as MS text:
-- in a listpack (up to 128 sites) Redis keeps an integral score as an
-- integer, and every other score as text it parses with strtod at each
-- entry a ZADD or a range walks past. On 100 entries a ZADD that moves a
-- site to the end took 14.5 us with MS scores, 3.4 with these
-- (docs/benchmarks.md, "The due index in microseconds").
local function DU(ms) return I(us(ms)) end
-- score = (7 - prio) << 50 | seq << 11 | attempts << 9 | max_age code
local function rid(score)
  return T:sub(2, -2) .. '-' .. I(math.floor(score / 2048) % 549755813888)
end
local function attempts(score) return math.floor(score / 512) % 4 end
-- inverse of qenc_url_pack
local function url_of(site, m)
  local t, r = m:sub(1, 1), m:sub(2)
  if t == 'h' then return 'http://' .. site .. r end
  if t == 's' then return 'https://' .. site .. r end
  if t == 'H' or t == 'S' then
    local n = r:find('[/:]') or (#r + 1)
    local sch = (t == 'H') and 'http://' or 'https://'
    return sch .. r:sub(1, n - 1) .. '.' .. site .. r:sub(n)
  end
  return r
end
-- Put a site in the due index of every client queued at it, due at 'at'
-- (its next allowed time, or its lease expiry while leased). False when
-- no client is queued there. A client's request that holds the site's
-- lease keeps the site out of that client's indexes until the lease ends
-- (lua_claim, enter, lua_renew). own: the client of the site's lease,
-- so in neither index: left out while the lease goes on (held), indexed
-- with no look at its ready index when the lease has just ended.
local function site_index(site, at, own, held)
  local cs = redis.call('SMEMBERS', key('sc', site))
  for _, c in ipairs(cs) do
    if c ~= own then
      redis.call('ZREM', key('cr', c), site)
      redis.call('ZADD', key('cd', c), DU(at), site)
    elseif not held then
      redis.call('ZADD', key('cd', c), DU(at), site)
    end
  end
  return #cs > 0
end
-- Counts the times this library moved a client into or out of vt:{N}:
-- lua_claim keeps a copy of its head and reads it again when this moved.
local VT_MOVES = 0
-- Write client c's charges not written yet (PEND).
local function cl_flush(c)
  local p = PEND[c]
  if not p then return end
  PEND[c] = nil
  redis.call('HINCRBY', key('cl', c), 'qn', I(-p.n))
  redis.call('ZADD', VT, p.fin, c)
end
-- Client c has n (default 1) more requests waiting in this shard; a client
-- that was idle re-enters fair queuing at the current virtual time (no
-- credit).
local function backlog_add(c, n)
  n = n or 1
  local ck = key('cl', c)
  cl_flush(c)
  local q = redis.call('HINCRBY', ck, 'qn', I(n))
  QN[c] = q
  if q == n then
    local v = tonumber(redis.call('HGET', HK, 'V') or '0')
    local f = tonumber(redis.call('HGET', ck, 'f') or '0')
    if f < v then f = v end
    redis.call('ZADD', VT, f, c)
    VT_MOVES = VT_MOVES + 1
  end
end
-- The (site, client) queue just became non-empty.
-- The site is not indexed for c while c's own request holds its lease
-- (site_index).
local function enter(site, c)
  local sk = key('s', site)
  redis.call('SADD', key('sc', site), c)
  redis.call('PERSIST', sk)
  local f = redis.call('HMGET', sk, 'lt', 'le', 'na', 'ic')
  if f[1] and f[4] == c then return end
  local at = tonumber(f[3]) or 0
  if f[1] and tonumber(f[2]) > at then at = tonumber(f[2]) end
  redis.call('ZADD', key('cd', c), DU(at), site)
end
-- A claimed request goes back to its place (same score, same member).
local function requeue(site, c, m, score)
  local qk = qkey(site, c)
  redis.call('ZADD', qk, I(score), m)
  if redis.call('ZCARD', qk) == 1 then enter(site, c) end
  backlog_add(c)
end
-- the readers create the consumer group (from id 0) when they first read;
-- readers waiting for c are woken through its channel (hlfs/state/notify.h)
local function publish(c, id, url, att, fields, maxlen)
  local e = redis.call('XADD', key('x', c), 'MAXLEN', '~', maxlen, '*', 'rid', id,
                       'url', url, 'a', NS(att), unpack(fields))
  redis.call('PUBLISH', 'n:' .. c, '')
-- A replica's synchronous results are read only while someone waits; one
-- that came after its waiter gave up, or for a replica that is gone (pod
-- names change with every rollout), would stay for ever: the stream lives
-- 10 minutes past its last result, more than the longest wait.
  if c:sub(1, 5) == 'sync.' then redis.call('PEXPIRE', key('x', c), '600000') end
  return e
end
-- A request that follows redirects has a record in fr:{N}, field
-- "<client>|<rid>": "hops left\n<first rid>\n<first URL>" then "\n<URL>"
-- per redirect followed (hlfs/sched/sched_follow.c). Its result is the result of
-- the request the client made: published under the first id and URL, with
-- the URLs followed ('rd'); none when a further hop was queued instead.
-- The record goes with the result. may_follow false: the caller knows
-- there is none (a record is made before its request is queued, so a
-- claim that found none rules one out), and it is not looked up.
local function publish_own(c, sc, url, fields, maxlen, hopped, may_follow)
  local prid, purl, fx = rid(sc), url, fields
  local fk = c .. '|' .. prid
  local fr = may_follow and redis.call('HGET', FR, fk)
  if fr then
    redis.call('HDEL', FR, fk)
    local _, orid, ourl, chain = fr:match('^(%d+)\n([^\n]*)\n([^\n]*)\n?(.*)$')
    prid, purl = orid, ourl
    if chain ~= '' then
      fx = { 'rd', chain }
      for _, v in ipairs(fields) do fx[#fx + 1] = v end
    end
  end
  if hopped then return false end
  return publish(c, prid, purl, attempts(sc) + 1, fx, maxlen)
end
-- Retry records (docs/retries.md): ra:{N}, field "<client>|<rid>", for a
-- request with a maximum of attempts of its own or an attempt behind it:
-- the maximum on the first line ('' when the gateway's applies), then
-- one line per attempt ended, "outcome,status,ms,at_ms,counted" (counted
-- 0: the fetcher was lost, no attempt at the site). The record goes with
-- the result. None for the plain request, so a page pays one HGET.
local function ra_field(c, sc) return c .. '|' .. rid(sc) end
local function ra_max(rec, dflt)
  return rec and tonumber(rec:match('^(%d+)')) or dflt
end
-- fetcher losses behind the request
local function ra_lost(rec)
  local n = 0
  if rec then for _ in rec:gmatch(',0\n') do n = n + 1 end end
  return n
end
-- one more attempt ended at now (entry: "outcome,status,ms"), the
-- request goes back to its queue
local function ra_add(c, sc, rec, entry, now, counted)
  redis.call('HSET', RA, ra_field(c, sc),
             (rec or '\n') .. entry .. ',' .. I(now) .. ',' .. counted .. '\n')
end
-- The attempt log a final result carries ('al'): the record's attempts
-- and this one (entry, or nil), the record dropped. nil when there is
-- no record: the result's own fields say all there is.
local function ra_final(c, sc, rec, entry, now, counted)
  if not rec then return nil end
  redis.call('HDEL', RA, ra_field(c, sc))
  local n = rec:find('\n', 1, true)
  local log = n and rec:sub(n + 1) or ''
  if entry then log = log .. entry .. ',' .. I(now) .. ',' .. (counted or '1') .. '\n' end
  if log == '' then return nil end
  return log
end
local function follows(c, sc) return redis.call('HEXISTS', FR, c .. '|' .. rid(sc)) == 1 end
-- Requests of other clients for a URL in flight wait for its result in
-- w:{N}<site>|<member> (field client, value its score) instead of being
-- fetched again.
local function wkey(site, m) return 'w:' .. T .. site .. '|' .. m end
-- A request in flight goes back to its queue (reaped, aborted, or after
-- its robots.txt). Other clients' requests that waited for it (w:) stay
-- there for its next claim; the site's 'wl' says some may, so that a claim
-- reads the waiters only then (lua_claim's absorb). Set on these rare
-- paths, it stays until the site's hash expires.
local function requeue_leader(site, c, m, score)
  requeue(site, c, m, score)
  if redis.call('EXISTS', wkey(site, m)) == 1 then
    redis.call('HSET', key('s', site), 'wl', '1')
  end
end
-- One of c's queued requests left its queue without a claim of its own.
-- A client leaving vt:{N} keeps its finish tag in its hash (lua_claim's
-- charge).
local function unqueue(c)
  local ck = key('cl', c)
  cl_flush(c)
  local q = redis.call('HINCRBY', ck, 'qn', '-1')
  QN[c] = q
  if q <= 0 then
    local f = redis.call('ZSCORE', VT, c)
    if f then redis.call('HSET', ck, 'f', f) end
    redis.call('ZREM', VT, c)
    VT_MOVES = VT_MOVES + 1
  end
end
-- The result of (site, m) is out: publish it to each waiter, marked with
-- the request it came from. A waiter whose max_age code is below need (the
-- result is an older stored copy than it accepts) goes back to its queue.
-- Returns how many were served, and how many requeued.
local function serve_waiters(site, m, url, from, fields, need, maxlen)
  local wk = wkey(site, m)
  local w = redis.call('HGETALL', wk)
  if #w == 0 then return 0, 0 end
  redis.call('DEL', wk)
  local fx = { 'co', from }
  for _, v in ipairs(fields) do fx[#fx + 1] = v end
  local served, back = 0, 0
  for j = 1, #w, 2 do
    local c, sc = w[j], tonumber(w[j + 1])
    if sc % 512 < need then
      requeue(site, c, m, sc)
      back = back + 1
    else
      publish(c, rid(sc), url, attempts(sc) + 1, fx, maxlen)
-- its own retry record, if it had one, goes with its result (the tries
-- it gets are the fetch's)
      redis.call('HDEL', RA, ra_field(c, sc))
      redis.call('HINCRBY', key('cl', c), 'n', '-1')
      served = served + 1
    end
  end
  return served, back
end
-- Drop the lease if token still holds it; the in-flight fields, or nil
-- (f[7]: the site's connections count, for conns).
local function release(site, token)
  local sk = key('s', site)
  local f = redis.call('HMGET', sk, 'lt', 'ic', 'iu', 'is', 'na', 'bu', 'cn')
  if f[1] ~= token then return nil end
  redis.call('HDEL', sk, 'lt', 'le', 'ic', 'iu', 'is', 'ia')
  redis.call('ZREM', LZ, site)
  return f
end
-- The site was contacted: store when it may be contacted next, and why.
-- delay_us counts from now (the gateway took off it how long ago the
-- answer came in); next_at is exact to the microsecond (MS).
-- had_bu: the hash holds a backoff_until to clear (from release).
-- local_due: the same time in the completing process's own clock
-- ("<instance>:<us>", '' when none), kept as 'lo' with the na it goes
-- with ('' when none: written, not deleted, so the politeness is one
-- HSET): lua_claim hands it back only while na is still that one, and
-- any other write of na drops it (lua_abort).
local function polite(site, now, delay_us, reason, streak, backoff, resp, had_bu, local_due)
  local sk = key('s', site)
  local na = (NOW_US + delay_us) / 1000
  local nas = MS(na)
  local lo = local_due ~= '' and local_due .. '|' .. nas or ''
  if backoff == '1' then
    redis.call('HSET', sk, 'na', nas, 'nr', reason, 'es', streak, 'la', I(now), 'lr', resp, 'bu', nas,
               'lo', lo)
  else
    redis.call('HSET', sk, 'na', nas, 'nr', reason, 'es', streak, 'la', I(now), 'lr', resp, 'lo', lo)
    if had_bu then redis.call('HDEL', sk, 'bu') end
  end
  return na
end
-- The connections opened to the site ('cn'): ct is the completion's
-- contacted argument (0: not contacted; else 1 + the connections the fetch
-- opened), had the count release read. Returns the count after the fetch.
local function conns(site, ct, had)
  if ct > 1 then return redis.call('HINCRBY', key('s', site), 'cn', I(ct - 1)) end
  return tonumber(had) or 0
end
-- After a release: a site with work is due again at na; an idle site's
-- state outlives its next allowed time by idle_ms, then goes.
-- own: as site_index's (nil: none known).
-- The roll call of lua_fence is over: claims may go on, but not before
-- the fence of a replica that could not call the roll (fh).
local function fence_lift(now)
  local fh = tonumber(redis.call('HGET', HK, 'fh') or '0')
  local at = now
  if fh > at then at = fh end
  redis.call('HSET', HK, 'fence', I(at))
  return at
end
local function settle(site, na, now, idle_ms, own)
  if not site_index(site, na, own) then
    local ttl = math.ceil(na - now)
    if ttl < 0 then ttl = 0 end
    redis.call('PEXPIRE', key('s', site), I(ttl + idle_ms))
  end
end
