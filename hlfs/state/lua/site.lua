-- wpfs: flags no-writes
-- A site's state for the API: its politeness hash, plus how many requests
-- wait in its queues.
-- KEYS[1] h:{N}
-- ARGV    {N}, site
-- Returns the hash as field/value pairs, then 'queued', count, 'clients',
-- number of clients with requests there.
-- wpfs: uses lib.lua
local site = ARGV[2]
local out = redis.call('HGETALL', key('s', site))
local cs = redis.call('SMEMBERS', key('sc', site))
local total = 0
for _, c in ipairs(cs) do total = total + redis.call('ZCARD', qkey(site, c)) end
out[#out + 1] = 'queued'
out[#out + 1] = tostring(total)
out[#out + 1] = 'clients'
out[#out + 1] = tostring(#cs)
return out
