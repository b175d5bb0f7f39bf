-- wpfs: flags allow-oom
-- Acknowledge delivered results and drop them from the stream at once
-- (they are not needed again, and MAXLEN alone would keep them).
-- KEYS[1] x:{N}<client>
-- ARGV    entry ids
-- Returns how many were pending (acknowledged now).
local n = redis.call('XACK', KEYS[1], 'wpfs', unpack(ARGV))
redis.call('XDEL', KEYS[1], unpack(ARGV))
return n
