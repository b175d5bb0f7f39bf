-- wpfs: flags allow-oom
-- wpfs: uses lib.lua
-- The fleet at a glance, for GET /status and the fleet gauges of /metrics:
-- the calling replica's heartbeat; the replicas seen lately; each client's
-- queued and in-flight requests and results not yet acknowledged; the
-- sites with the most queued requests among a bounded number examined.
-- Writes only the heartbeat; the rest reads, at a cost bounded by ARGV.
-- KEYS[1] h:{N}
-- ARGV    {N}, replica ('' = no heartbeat), its info, replica_ttl_ms, top,
--         examine (site-client pairs looked at, at most), client...
-- Returns { now, replicas, clients, sites, pairs, examined } where
--   replicas = { {name, seen_ms, info}... }
--   clients  = { {name, queued, queued + in flight, results, oldest_ms}... }
--   sites    = { {site, queued, na, nr, le, es, la}... } busiest first
local now = now_ms()
local RP, RI = key('rp', ''), key('ri', '')
local me, ttl, top, examine = ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if me ~= '' then
  redis.call('ZADD', RP, now, me)
  redis.call('HSET', RI, me, ARGV[3])
end
for _, r in ipairs(redis.call('ZRANGEBYSCORE', RP, '-inf', now - ttl)) do
  redis.call('HDEL', RI, r)
end
redis.call('ZREMRANGEBYSCORE', RP, '-inf', now - ttl)
local replicas = {}
local rs = redis.call('ZRANGE', RP, 0, -1, 'WITHSCORES')
for i = 1, #rs, 2 do
  replicas[#replicas + 1] = { rs[i], rs[i + 1], redis.call('HGET', RI, rs[i]) or '' }
end
-- the clients asked about, and any other with requests queued (another
-- replica's synchronous fetches)
local names, seen = {}, {}
local function want(c) if not seen[c] then seen[c] = true; names[#names + 1] = c end end
for i = 7, #ARGV do want(ARGV[i]) end
for _, c in ipairs(redis.call('ZRANGE', VT, 0, 99)) do want(c) end
local clients = {}
for _, c in ipairs(names) do
  local cl = redis.call('HMGET', key('cl', c), 'qn', 'n')
  local first = redis.call('XRANGE', key('x', c), '-', '+', 'COUNT', 1)
  local oldest = 0
  if first[1] then oldest = tonumber(string.match(first[1][1], '^(%d+)')) end
  clients[#clients + 1] = { c, tonumber(cl[1]) or 0, tonumber(cl[2]) or 0,
                            redis.call('XLEN', key('x', c)), oldest }
end
-- busiest sites: queued requests summed over clients, the top kept sorted
-- (a new entry enters only when it beats the smallest kept)
local count, pairs_, examined = {}, 0, 0
-- a client's sites with work are in its waiting index (cd) or, once due,
-- its ready one (cr): never both
if top > 0 then
  for _, c in ipairs(names) do
    for _, ix in ipairs({ key('cd', c), key('cr', c) }) do
      pairs_ = pairs_ + redis.call('ZCARD', ix)
      if examined < examine then
        local list = redis.call('ZRANGE', ix, 0, examine - examined - 1)
        for _, site in ipairs(list) do
          count[site] = (count[site] or 0) + redis.call('ZCARD', qkey(site, c))
        end
        examined = examined + #list
      end
    end
  end
-- A site whose lease a client's request holds is in neither of that
-- client's indexes until the lease ends (lua_claim): its queue there is
-- found through the lease index, within what is left of the bound (a
-- leased pair past it is not counted in pairs either: at most the
-- requests in flight).
  if examined < examine then
    for _, site in ipairs(redis.call('ZRANGE', LZ, 0, examine - examined - 1)) do
      local c = redis.call('HGET', key('s', site), 'ic')
      local n = c and seen[c] and redis.call('ZCARD', qkey(site, c)) or 0
      if n > 0 then
        count[site] = (count[site] or 0) + n
        pairs_, examined = pairs_ + 1, examined + 1
      end
    end
  end
end
local best = {}
for site, n in pairs(count) do
  if #best < top or n > best[#best][2] then
    local i = #best + 1
    while i > 1 and best[i - 1][2] < n do i = i - 1 end
    table.insert(best, i, { site, n })
    if #best > top then best[#best] = nil end
  end
end
local sites = {}
for _, b in ipairs(best) do
  local f = redis.call('HMGET', key('s', b[1]), 'na', 'nr', 'le', 'es', 'la')
  sites[#sites + 1] = { b[1], b[2], f[1] or '0', f[2] or '', f[3] or '0', f[4] or '0',
                        f[5] or '0' }
end
return { now, replicas, clients, sites, pairs_, examined }
