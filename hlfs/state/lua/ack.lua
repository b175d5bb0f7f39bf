-- wpfs: flags allow-oom
-- Acknowledge delivered results and drop them from the stream at once
-- (they are not needed again, and MAXLEN alone would keep them).
-- KEYS[1] x:{N}<client>
-- ARGV    entry ids
-- Returns how many were pending (acknowledged now).
--
-- The group delivers in id order, so every entry below the first one
-- still pending, or below the last one delivered when none is, has been
-- delivered and is no longer pending: acknowledged. One XTRIM MINID drops
-- those; XDEL finds each id apart, 40 times the cost for ids in order
-- (docs/benchmarks.md, "Acknowledged results trimmed"), and takes only
-- the ids acknowledged out of order, at or above that bound.
local k = KEYS[1]
local n = redis.call('XACK', k, 'wpfs', unpack(ARGV))
local function id_of(s)
  local ms, seq = s:match('^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function bound()
  local p = redis.pcall('XPENDING', k, 'wpfs')
  if p.err then return nil end
  if p[2] then return id_of(p[2]) end
  local g = redis.pcall('XINFO', 'GROUPS', k)
  if g.err then return nil end
  for _, e in ipairs(g) do
    local f = {}
    for j = 1, #e, 2 do f[e[j]] = e[j + 1] end
    if f['name'] == 'wpfs' then
      local ms, seq = id_of(f['last-delivered-id'] or '')
      if ms then return ms, seq + 1 end
    end
  end
  return nil
end
local bms, bseq = bound()
local rest = {}
for _, s in ipairs(ARGV) do
  local ms, seq = id_of(s)
  if not (bms and ms and (ms < bms or (ms == bms and seq < bseq))) then rest[#rest + 1] = s end
end
if bms then redis.call('XTRIM', k, 'MINID', string.format('%d-%d', bms, bseq)) end
if rest[1] then redis.call('XDEL', k, unpack(rest)) end
return n
