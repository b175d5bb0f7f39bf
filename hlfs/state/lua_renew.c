/* Extend the leases this replica still holds.
 * KEYS[1] h:{N}
 * ARGV    {N}, lease_ms, then pairs: site, token
 * Returns one value per pair: 1 renewed, 0 lost (the token no longer holds
 * the site: it expired and was reaped; the fetch must stop). */
#include "hlfs/state/lua.h"
#include "hlfs/state/lua_lib.h"

const char lua_renew[] = LUA_LIB
"local lease = tonumber(ARGV[2])\n"
"local now = now_ms()\n"
"local out = {}\n"
"for j = 3, #ARGV - 1, 2 do\n"
"  local site, token = ARGV[j], ARGV[j + 1]\n"
"  local sk = key('s', site)\n"
"  if redis.call('HGET', sk, 'lt') == token then\n"
"    local le = now + lease\n"
"    redis.call('HSET', sk, 'le', le)\n"
"    redis.call('ZADD', LZ, le, site)\n"
"    site_index(site, le)\n"
"    out[#out + 1] = 1\n"
"  else\n"
"    out[#out + 1] = 0\n"
"  end\n"
"end\n"
"return out\n";
