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
-- A partition's owner entry, "member epoch lease-end": its three parts
-- (nil when there is none).
local function owner_parse(s)
  if not s then return nil end
  local m, e, x = string.match(s, '^(%S+) (%d+) (%d+)$')
  return m, tonumber(e), tonumber(x)
end
local function owner_entry(m, e, x) return m .. ' ' .. I(e) .. ' ' .. I(x) end
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
