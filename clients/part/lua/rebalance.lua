-- A member's heartbeat and its share of the partitions, each tick.
-- KEYS[1] members (zset: member -> end of its lease, ms: the lease of
-- every partition it holds), KEYS[2] meta, KEYS[3] owner (hash:
-- partition -> "member epoch"), KEYS[4] epoch (the fencing counter),
-- KEYS[5] stats (a crawl that is over takes nothing: its members leave)
-- ARGV[1] member, ARGV[2] lease ms, ARGV[3] partitions (N), ARGV[4] "1":
-- take free partitions up to the share, "0": only renew
-- Returns { live members, share, { p, epoch, lapsed, ... } }: every
-- partition the member holds now, its lease renewed; lapsed is 1 for one
-- taken now whose former owner's lease had ended (it did not give it
-- back: what it finished after its last snapshot is fetched again).
--
-- The share is ceil(N / live members). The member's heartbeat renews all
-- its partitions (nobody took them, so nobody wrote for them); a
-- partition of a member whose lease ended is free, and a claim makes a
-- new epoch, so the former owner's writes (snap.lua) are refused from then
-- on. The member gives back partitions above its share itself
-- (release.lua), after their snapshot; members that joined take them then.
local err = partitions_check(KEYS[2], ARGV[3])
if err then return err end
local mem, lease, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. I(now))
redis.call('ZADD', KEYS[1], I(now + lease), mem)
local alive, live = live_set(KEYS[1], now)
local share = math.floor((n + live - 1) / live)
local all = redis.call('HGETALL', KEYS[3])
local held, lapsed, out, mine = {}, {}, {}, 0
for i = 1, #all, 2 do
  local m, e = owner_parse(all[i + 1])
  if m == mem then
    out[#out + 1] = all[i]
    out[#out + 1] = I(e)
    out[#out + 1] = '0'
    mine = mine + 1
    held[all[i]] = true
  elseif alive[m] then
    held[all[i]] = true
  else
    lapsed[all[i]] = true
  end
end
if ARGV[4] == '1' and redis.call('HGET', KEYS[5], 'done') ~= '1' then
  for p = 0, n - 1 do
    if mine >= share then break end
    local k = I(p)
    if not held[k] then
      local e = redis.call('INCR', KEYS[4])
      redis.call('HSET', KEYS[3], k, owner_entry(mem, e))
      out[#out + 1] = k
      out[#out + 1] = I(e)
      out[#out + 1] = lapsed[k] and '1' or '0'
      mine = mine + 1
    end
  end
end
return { live, share, out }
