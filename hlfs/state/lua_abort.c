/* Give a claim back without an outcome (the replica is stopping, the
 * fetch could not start or no fetcher took it, a robots.txt answer was
 * lost): the request returns to its place with its attempts unchanged; the
 * site keeps its next allowed time, or, when charge_ms > 0 (it may have
 * been contacted), rests that long from now, with reason "fetcher_lost".
 * KEYS[1] h:{N}
 * ARGV    {N}, site, token, idle_ms, charge_ms
 * Returns 1, or 0 when the lease was already lost. */
#include "hlfs/state/lua.h"
#include "hlfs/state/lua_lib.h"

const char lua_abort[] = LUA_LIB
"local site, token = ARGV[2], ARGV[3]\n"
"local now = now_ms()\n"
"local f = release(site, token)\n"
"if not f then return 0 end\n"
"requeue(site, f[2], f[3], tonumber(f[4]))\n"
"local na = tonumber(f[5]) or 0\n"
"local charge = tonumber(ARGV[5]) or 0\n"
"if charge > 0 and up(now) + charge > na then\n"
"  na = up(now) + charge\n"
"  redis.call('HSET', key('s', site), 'na', na, 'nr', 'fetcher_lost', 'la', now)\n"
"end\n"
"if na < now then na = now end\n"
"settle(site, na, now, tonumber(ARGV[4]))\n"
"return 1\n";
