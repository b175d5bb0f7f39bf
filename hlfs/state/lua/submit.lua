-- Enqueue a batch of one client's URLs on one shard, atomically.
-- No Redis flags (mk/lua2c.sh): past maxmemory, Redis refuses a submission
-- before it writes anything (docs/hlfs-state.md, "Scripts").
-- KEYS[1] h:{N}
-- ARGV    {N}, client, weight, rate_per_s (0 = no limit), burst,
--         max_queued (0 = no limit), queue_retry_ms, quota client ('' =
--         the client itself; else rate, burst and max_queued are that
--         client's, charged to its bucket and checked against its count,
--         while the requests are queued and counted for the client: the
--         synchronous fetches of a replica, state_submit_as),
--         then per URL: site, member, base score (qenc_score_base), follow
--         ('' none; "N" follow up to N redirects; a whole record for a
--         redirect hop, lib.lua), max_attempts ('' the gateway's; else
--         the request's own, kept in its retry record: lib.lua)
-- Weight 0 submits redirect hops of accepted requests: no token, no quota,
-- the client's weight and bucket untouched; a hop never waits on another
-- client's fetch (its result continues its own chain).
-- Returns per URL two values: code, then the request id (codes 0-2) or the
-- milliseconds to wait before retrying (3-4):
--   0 accepted  1 duplicate of a queued request  2 duplicate of the one in
--   flight  3 over the request rate  4 over the queued-URL quota  5 accepted
--   as a waiter of the same URL in flight for another client (coalesced: it
--   gets that fetch's result)
-- The token bucket charges every URL offered, duplicates included: a client
-- that resubmits its backlog in a loop is throttled like any other.
-- wpfs: uses lib.lua
local c = ARGV[2]
local w, rate, burst = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local maxq, qretry = tonumber(ARGV[6]), tonumber(ARGV[7])
local now = now_ms()
local ck = key('cl', c)
local qc = ARGV[8] ~= '' and key('cl', ARGV[8]) or ck
local st = redis.call('HMGET', qc, 'tok', 'ts', 'n')
local tok = tonumber(st[1]) or burst
local qn = tonumber(st[3]) or 0
local n = qn
if qc ~= ck then n = tonumber(redis.call('HGET', ck, 'n') or '0') end
if rate > 0 then
  tok = math.min(burst, tok + (now - (tonumber(st[2]) or now)) * rate / 1000)
end
local hop = w == 0
-- Per call, not per URL: the request sequence (read once, written back
-- once) and the backlog count of the client (lib.lua's backlog_add). Two
-- commands a URL fewer; nothing in between reads either.
local seq0 = tonumber(redis.call('HGET', HK, 'seq') or '0')
local seq, queued = seq0, 0
-- A hop finding its URL queued or in flight for the client with a record of
-- the same chain: an earlier attempt of the same 3xx (its lease expired
-- after it queued the hop) queued it already. That is the hop, accepted.
local function same_chain(fol, score)
  if not fol:find('\n') then return false end
  local r = redis.call('HGET', FR, c .. '|' .. rid(score))
  return r and r:match('^%d+\n([^\n]*)') == fol:match('^%d+\n([^\n]*)')
end
local function offer(site, m, base, fol, mx)
  if rate > 0 and not hop then
    if tok < 1 then return 3, math.ceil((1 - tok) * 1000 / rate) end
    tok = tok - 1
  end
  local qk = qkey(site, c)
  local old = redis.call('ZSCORE', qk, m)
  if old then return same_chain(fol, tonumber(old)) and 0 or 1, rid(tonumber(old)) end
  local f = redis.call('HMGET', key('s', site), 'ic', 'iu', 'is', 'wl')
  if f[1] == c and f[2] == m then
    return same_chain(fol, tonumber(f[3])) and 0 or 2, rid(tonumber(f[3]))
  end
-- c can wait for m only while m is in flight, or after a claim of m went
-- back to its queue with waiters (wl: lib.lua's requeue_leader); a
-- command a URL saved otherwise
  local wk = wkey(site, m)
  local ws = (f[2] == m or f[4]) and redis.call('HGET', wk, c)
  if ws then return 2, rid(tonumber(ws)) end
  if maxq > 0 and qn >= maxq and not hop then return 4, qretry end
  seq = seq + 1
  local score = base + (seq % 549755813888) * 2048
  n = n + 1
  if qc == ck then qn = n end
  if fol ~= '' then
    if not fol:find('\n') then fol = fol .. '\n' .. rid(score) .. '\n' .. url_of(site, m) end
    redis.call('HSET', FR, c .. '|' .. rid(score), fol)
  elseif f[1] and f[2] == m then
    redis.call('HSET', wk, c, I(score))
    return 5, rid(score)
  end
  if mx ~= '' then redis.call('HSET', RA, ra_field(c, score), mx .. '\n') end
  redis.call('ZADD', qk, I(score), m)
  if redis.call('ZCARD', qk) == 1 then enter(site, c)
  else redis.call('ZADD', key('cr', c), 'XX', 'LT', I(score), site) end
  queued = queued + 1
  return 0, rid(score)
end
local out = {}
for j = 9, #ARGV - 4, 5 do
  local code, val = offer(ARGV[j], ARGV[j + 1], tonumber(ARGV[j + 2]), ARGV[j + 3], ARGV[j + 4])
  out[#out + 1] = code
  out[#out + 1] = val
end
if seq ~= seq0 then redis.call('HSET', HK, 'seq', I(seq)) end
if queued > 0 then backlog_add(c, queued) end
if hop then redis.call('HSET', ck, 'n', I(n))
elseif qc == ck then redis.call('HSET', ck, 'w', I(w), 'tok', tok, 'ts', I(now), 'n', I(n))
else
  redis.call('HSET', qc, 'tok', tok, 'ts', I(now))
  redis.call('HSET', ck, 'w', I(w), 'n', I(n))
end
return out
