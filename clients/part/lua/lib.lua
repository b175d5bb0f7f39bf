-- Shared by the functions of a crawl on several processes (clients/part/,
-- docs/crawler.md, "A crawl on several processes"). Every key of a crawl
-- starts with wc:{NAME}: (one hash slot), and the C side names each key a
-- function touches in its KEYS.
-- The server's clock: every member's lease is measured on the same one.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- An integer as text (Redis formats Lua numbers as floats).
local function I(x) return string.format('%d', x) end
-- A partition's owner entry, "member epoch": its two parts (nil when
-- there is none). The lease is the member's: its end is the member's
-- score in the members ZSET, so one ZADD renews all its partitions.
local function owner_parse(s)
  if not s then return nil end
  local m, e = string.match(s, '^(%S+) (%d+)$')
  return m, tonumber(e)
end
local function owner_entry(m, e) return m .. ' ' .. I(e) end
-- The members whose lease runs: a set of names.
local function live_set(members, now)
  local live, set = redis.call('ZRANGEBYSCORE', members, I(now), '+inf'), {}
  for _, m in ipairs(live) do set[m] = true end
  return set, #live
end
-- The crawl was started with ARGV's number of partitions, or is started
-- now with it: nil, or the error to answer.
local function partitions_check(meta, n)
  local have = redis.call('HGET', meta, 'partitions')
  if not have then
    redis.call('HSET', meta, 'partitions', n)
  elseif have ~= n then
    return redis.error_reply('PARTITIONS the crawl has ' .. have .. ' partitions, not ' .. n)
  end
  return nil
end
