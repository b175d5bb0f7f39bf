/* A robots.txt redirect that leads to another site is fetched under that
 * site's lease, like one of its own requests, so that "one request in
 * flight per site" and its next allowed time hold for the hop too. The
 * lease carries no queued request (no ic/iu/is): a reaper that finds it
 * expired only releases it (lua_claim).
 *
 * lua_hop_take
 * KEYS[1] h:{N} (the hop site's shard)
 * ARGV    {N}, site, token, lease_ms, max_wait_ms, hold_ms
 * Returns { 1, error_streak } when the lease was taken, { 0, wait_ms, 0 }
 * when the site is not due yet (until its next allowed time), { 0, 0, 1 }
 * when it is leased (a lease is renewed while its fetch lasts, so its end
 * says nothing: the caller asks again shortly). An expired lease is left
 * to the claim's reaper, which puts its request back.
 * A refused hop that will wait (the site is due within max_wait_ms, or is
 * leased) reserves the site: hr (token) and hx (until when: its next
 * allowed time + hold_ms, or now + hold_ms while leased). Claims skip a
 * reserved site (lua_claim), so a busy site's own queue cannot starve the
 * hop, which only asks every poll; a reservation whose hop went away ends
 * by itself at hx. One hop holds a site's reservation at a time.
 *
 * lua_hop_free
 * KEYS[1] h:{N}
 * ARGV    {N}, site, token, contacted (0/1), delay_ms, reason, error_streak,
 *         backoff (0/1), response_ms, idle_ms
 * Returns 1, or 0 when the token no longer held the lease. */
#include "hlfs/state/lua.h"
#include "hlfs/state/lua_lib.h"

const char lua_hop_take[] = LUA_LIB
"local site, token, lease = ARGV[2], ARGV[3], tonumber(ARGV[4])\n"
"local max_wait, hold = tonumber(ARGV[5]), tonumber(ARGV[6])\n"
"local now = now_ms()\n"
"local sk = key('s', site)\n"
"local f = redis.call('HMGET', sk, 'lt', 'le', 'na', 'es', 'hr', 'hx')\n"
"local hx = tonumber(f[6]) or 0\n"
"local mine = (not f[5]) or f[5] == token or hx <= now\n"
"local na = tonumber(f[3]) or 0\n"
"if f[1] then\n"
"  if mine then redis.call('HSET', sk, 'hr', token, 'hx', now + hold) end\n"
"  return { 0, 0, 1 }\n"
"end\n"
"if na > now then\n"
"  if mine and na - now <= max_wait then redis.call('HSET', sk, 'hr', token, 'hx', na + hold) end\n"
"  return { 0, na - now, 0 }\n"
"end\n"
"if not mine then return { 0, hx - now, 0 } end\n"
"local le = now + lease\n"
"redis.call('HDEL', sk, 'hr', 'hx')\n"
"redis.call('HSET', sk, 'lt', token, 'le', le, 'ia', now)\n"
"redis.call('PERSIST', sk)\n"
"redis.call('ZADD', LZ, le, site)\n"
"site_index(site, le)\n"
"return { 1, tonumber(f[4]) or 0 }\n";

const char lua_hop_free[] = LUA_LIB
"local site, token = ARGV[2], ARGV[3]\n"
"local now = now_ms()\n"
"local f = release(site, token)\n"
"if not f then return 0 end\n"
"local na = tonumber(f[5]) or 0\n"
"if ARGV[4] == '1' then\n"
"  na = polite(site, now, tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8], ARGV[9], f[6])\n"
"end\n"
"if na < now then na = now end\n"
"settle(site, na, now, tonumber(ARGV[10]))\n"
"return 1\n";
