#ifndef WPFS_HLFS_LUA_LIB_H
#define WPFS_HLFS_LUA_LIB_H
/* Lua shared by the shard scripts, pasted in front of each (Redis scripts
 * cannot include one another). Conventions of every shard script:
 *   KEYS[1] = "h:{N}" (the shard hash: routes the call on a Cluster; every
 *             other key the script touches carries the same tag "{N}");
 *   ARGV[1] = "{N}", the tag itself.
 * Times are the Redis server's clock (TIME), the one clock all replicas
 * share. Numbers handed to redis.call are sent with 17 digits, so scores
 * below 2^53 stay exact; string concatenation would not (%.14g), hence I().
 * The layout is described in docs/hlfs-state.md. */

#define LUA_LIB \
"local T = ARGV[1]\n" \
"local HK = KEYS[1]\n" \
"local LZ = 'lz:' .. T\n" \
"local VT = 'vt:' .. T\n" \
"local FR = 'fr:' .. T\n" \
"local function key(p, s) return p .. ':' .. T .. s end\n" \
"local function qkey(site, c) return 'q:' .. T .. site .. '|' .. c end\n" \
"local function I(x) return string.format('%.0f', x) end\n" \
"local TIME_US = 0\n" \
"local function now_ms()\n" \
"  local t = redis.call('TIME')\n" \
"  TIME_US = tonumber(t[2])\n" \
"  return tonumber(t[1]) * 1000 + math.floor(TIME_US / 1000)\n" \
"end\n" \
/* now_ms of the same instant rounded up: a next_at computed from it is
 * never early by a fraction of a millisecond (claims compare with now_ms,
 * rounded down) */ \
"local function up(now) if TIME_US % 1000 > 0 then return now + 1 end return now end\n" \
/* score = (7 - prio) << 50 | seq << 11 | attempts << 9 | max_age code */ \
"local function rid(score)\n" \
"  return T:sub(2, -2) .. '-' .. I(math.floor(score / 2048) % 549755813888)\n" \
"end\n" \
"local function attempts(score) return math.floor(score / 512) % 4 end\n" \
/* inverse of qenc_url_pack */ \
"local function url_of(site, m)\n" \
"  local t, r = m:sub(1, 1), m:sub(2)\n" \
"  if t == 'h' then return 'http://' .. site .. r end\n" \
"  if t == 's' then return 'https://' .. site .. r end\n" \
"  if t == 'H' or t == 'S' then\n" \
"    local n = r:find('[/:]') or (#r + 1)\n" \
"    local sch = (t == 'H') and 'http://' or 'https://'\n" \
"    return sch .. r:sub(1, n - 1) .. '.' .. site .. r:sub(n)\n" \
"  end\n" \
"  return r\n" \
"end\n" \
/* Put a site in the due index of every client queued at it, due at 'at'
 * (its next allowed time, or its lease expiry while leased). */ \
"local function site_index(site, at)\n" \
"  for _, c in ipairs(redis.call('SMEMBERS', key('sc', site))) do\n" \
"    redis.call('ZREM', key('cr', c), site)\n" \
"    redis.call('ZADD', key('cd', c), at, site)\n" \
"  end\n" \
"end\n" \
/* Client c has one more request waiting in this shard; a client that was
 * idle re-enters fair queuing at the current virtual time (no credit). */ \
"local function backlog_add(c)\n" \
"  local ck = key('cl', c)\n" \
"  if redis.call('HINCRBY', ck, 'qn', 1) == 1 then\n" \
"    local v = tonumber(redis.call('HGET', HK, 'V') or '0')\n" \
"    local f = tonumber(redis.call('HGET', ck, 'f') or '0')\n" \
"    if f < v then f = v end\n" \
"    redis.call('ZADD', VT, f, c)\n" \
"  end\n" \
"end\n" \
/* The (site, client) queue just became non-empty. */ \
"local function enter(site, c)\n" \
"  local sk = key('s', site)\n" \
"  redis.call('SADD', key('sc', site), c)\n" \
"  redis.call('PERSIST', sk)\n" \
"  local f = redis.call('HMGET', sk, 'lt', 'le', 'na')\n" \
"  local at = tonumber(f[3]) or 0\n" \
"  if f[1] and tonumber(f[2]) > at then at = tonumber(f[2]) end\n" \
"  redis.call('ZADD', key('cd', c), at, site)\n" \
"end\n" \
/* A claimed request goes back to its place (same score, same member). */ \
"local function requeue(site, c, m, score)\n" \
"  local qk = qkey(site, c)\n" \
"  redis.call('ZADD', qk, score, m)\n" \
"  if redis.call('ZCARD', qk) == 1 then enter(site, c) end\n" \
"  backlog_add(c)\n" \
"end\n" \
/* the readers create the consumer group (from id 0) when they first read;
 * readers waiting for c are woken through its channel (hlfs/state/notify.h) */ \
"local function publish(c, id, url, att, fields, maxlen)\n" \
"  local e = redis.call('XADD', key('x', c), 'MAXLEN', '~', maxlen, '*', 'rid', id,\n" \
"                       'url', url, 'a', att, unpack(fields))\n" \
"  redis.call('PUBLISH', 'n:' .. c, '')\n" \
/* A replica's synchronous results are read only while someone waits; one
 * that came after its waiter gave up, or for a replica that is gone (pod
 * names change with every rollout), would stay for ever: the stream lives
 * 10 minutes past its last result, more than the longest wait. */ \
"  if c:sub(1, 5) == 'sync.' then redis.call('PEXPIRE', key('x', c), 600000) end\n" \
"  return e\n" \
"end\n" \
/* A request that follows redirects has a record in fr:{N}, field
 * "<client>|<rid>": "hops left\n<first rid>\n<first URL>" then "\n<URL>"
 * per redirect followed (hlfs/sched/sched_follow.c). Its result is the result of
 * the request the client made: published under the first id and URL, with
 * the URLs followed ('rd'); none when a further hop was queued instead.
 * The record goes with the result. */ \
"local function publish_own(c, sc, url, fields, maxlen, hopped)\n" \
"  local fk = c .. '|' .. rid(sc)\n" \
"  local fr = redis.call('HGET', FR, fk)\n" \
"  local prid, purl, fx = rid(sc), url, fields\n" \
"  if fr then\n" \
"    redis.call('HDEL', FR, fk)\n" \
"    local _, orid, ourl, chain = fr:match('^(%d+)\\n([^\\n]*)\\n([^\\n]*)\\n?(.*)$')\n" \
"    prid, purl = orid, ourl\n" \
"    if chain ~= '' then\n" \
"      fx = { 'rd', chain }\n" \
"      for _, v in ipairs(fields) do fx[#fx + 1] = v end\n" \
"    end\n" \
"  end\n" \
"  if hopped then return false end\n" \
"  return publish(c, prid, purl, attempts(sc) + 1, fx, maxlen)\n" \
"end\n" \
"local function follows(c, sc) return redis.call('HEXISTS', FR, c .. '|' .. rid(sc)) == 1 end\n" \
/* Requests of other clients for a URL in flight wait for its result in
 * w:{N}<site>|<member> (field client, value its score) instead of being
 * fetched again. */ \
"local function wkey(site, m) return 'w:' .. T .. site .. '|' .. m end\n" \
/* One of c's queued requests left its queue without a claim of its own. */ \
"local function unqueue(c)\n" \
"  if redis.call('HINCRBY', key('cl', c), 'qn', -1) <= 0 then redis.call('ZREM', VT, c) end\n" \
"end\n" \
/* The result of (site, m) is out: publish it to each waiter, marked with
 * the request it came from. A waiter whose max_age code is below need (the
 * result is an older stored copy than it accepts) goes back to its queue.
 * Returns how many were served, and how many requeued. */ \
"local function serve_waiters(site, m, url, from, fields, need, maxlen)\n" \
"  local wk = wkey(site, m)\n" \
"  local w = redis.call('HGETALL', wk)\n" \
"  if #w == 0 then return 0, 0 end\n" \
"  redis.call('DEL', wk)\n" \
"  local fx = { 'co', from }\n" \
"  for _, v in ipairs(fields) do fx[#fx + 1] = v end\n" \
"  local served, back = 0, 0\n" \
"  for j = 1, #w, 2 do\n" \
"    local c, sc = w[j], tonumber(w[j + 1])\n" \
"    if sc % 512 < need then\n" \
"      requeue(site, c, m, sc)\n" \
"      back = back + 1\n" \
"    else\n" \
"      publish(c, rid(sc), url, attempts(sc) + 1, fx, maxlen)\n" \
"      redis.call('HINCRBY', key('cl', c), 'n', -1)\n" \
"      served = served + 1\n" \
"    end\n" \
"  end\n" \
"  return served, back\n" \
"end\n" \
/* Drop the lease if token still holds it; the in-flight fields, or nil. */ \
"local function release(site, token)\n" \
"  local sk = key('s', site)\n" \
"  local f = redis.call('HMGET', sk, 'lt', 'ic', 'iu', 'is', 'na', 'bu')\n" \
"  if f[1] ~= token then return nil end\n" \
"  redis.call('HDEL', sk, 'lt', 'le', 'ic', 'iu', 'is', 'ia')\n" \
"  redis.call('ZREM', LZ, site)\n" \
"  return f\n" \
"end\n" \
/* The site was contacted: store when it may be contacted next, and why. */ \
/* had_bu: the hash holds a backoff_until to clear (from release) */ \
"local function polite(site, now, delay, reason, streak, backoff, resp, had_bu)\n" \
"  local sk = key('s', site)\n" \
"  local na = up(now) + delay\n" \
"  if backoff == '1' then\n" \
"    redis.call('HSET', sk, 'na', na, 'nr', reason, 'es', streak, 'la', now, 'lr', resp, 'bu', na)\n" \
"  else\n" \
"    redis.call('HSET', sk, 'na', na, 'nr', reason, 'es', streak, 'la', now, 'lr', resp)\n" \
"    if had_bu then redis.call('HDEL', sk, 'bu') end\n" \
"  end\n" \
"  return na\n" \
"end\n" \
/* After a release: a site with work is due again at na; an idle site's
 * state outlives its next allowed time by idle_ms, then goes. */ \
"local function settle(site, na, now, idle_ms)\n" \
"  if redis.call('SCARD', key('sc', site)) > 0 then\n" \
"    site_index(site, na)\n" \
"  else\n" \
"    local ttl = na - now\n" \
"    if ttl < 0 then ttl = 0 end\n" \
"    redis.call('PEXPIRE', key('s', site), ttl + idle_ms)\n" \
"  end\n" \
"end\n"

#endif
