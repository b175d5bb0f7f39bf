-- wpfs: flags allow-oom
-- wpfs: uses lib.lua
-- After the server changed (lua_fence), write again what this replica
-- wrote lately to the sites' politeness (hlfs/state/state_journal.c):
-- a next allowed time later than the one stored; a lease of its own still
-- there extended to its end; a lease of its own gone (lost with the old
-- server's last writes: its fetch may still be talking to the site until
-- the lease's end, and is stopped at its next renewal) rests the site
-- until then plus lost_ms. Times come as ms from now, so the clocks of the
-- two servers need not agree. With final = 1, the replica then answers
-- the roll call of run_id: once every replica called has, the fence lifts
-- (no later than the fh of a replica that could not call the roll).
-- KEYS[1] h:{N}
-- ARGV    {N}, replica, run_id, final (0/1), lost_ms, idle_ms, then per
--         site: site, token ('' none), lease_left_ms, na_left_ms
-- Returns { sites written, replicas still to answer (-1: no roll of run_id) }
local now = now_ms()
local lost, idle = tonumber(ARGV[5]), tonumber(ARGV[6])
local written = 0
for i = 7, #ARGV - 3, 4 do
  local site, tok = ARGV[i], ARGV[i + 1]
  local ll, nl = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local sk = key('s', site)
  local f = redis.call('HMGET', sk, 'lt', 'le', 'na', 'ic')
  local na = 0
  if nl > 0 then na = up(now) + nl end
  if tok ~= '' and f[1] == tok then
    local le = now + ll
    if le > (tonumber(f[2]) or 0) then
      redis.call('HSET', sk, 'le', I(le))
      redis.call('ZADD', LZ, I(le), site)
      site_index(site, le, f[4], true)
      written = written + 1
    end
  elseif tok ~= '' and now + ll + lost > na then
    na = up(now) + ll + lost
  end
  if na > (tonumber(f[3]) or 0) then
    redis.call('HSET', sk, 'na', MS(na), 'nr', 'failover', 'lo', '')
    if not f[1] then settle(site, na, now, idle) end
    written = written + 1
  end
end
if ARGV[4] ~= '1' then return { written, -1 } end
if redis.call('HGET', HK, 'fe') ~= ARGV[3] then return { written, -1 } end
local RW = key('fw', '')
redis.call('SREM', RW, ARGV[2])
redis.call('SADD', key('fd', ''), ARGV[2])
local left = redis.call('SCARD', RW)
if left == 0 then fence_lift(now) end
return { written, left }
