/* A site's state for the API: its politeness hash, plus how many requests
 * wait in its queues.
 * KEYS[1] h:{N}
 * ARGV    {N}, site
 * Returns the hash as field/value pairs, then 'queued', count, 'clients',
 * number of clients with requests there. */
#include "hlfs/state/lua.h"
#include "hlfs/state/lua_lib.h"

const char lua_site[] = LUA_LIB
"local site = ARGV[2]\n"
"local out = redis.call('HGETALL', key('s', site))\n"
"local cs = redis.call('SMEMBERS', key('sc', site))\n"
"local total = 0\n"
"for _, c in ipairs(cs) do total = total + redis.call('ZCARD', qkey(site, c)) end\n"
"out[#out + 1] = 'queued'\n"
"out[#out + 1] = tostring(total)\n"
"out[#out + 1] = 'clients'\n"
"out[#out + 1] = tostring(#cs)\n"
"return out\n";
