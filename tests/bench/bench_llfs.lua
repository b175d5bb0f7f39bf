-- Load for bench_llfs.sh: every request is POST /internal/v1/fetch of the
-- next URL of a list (wrk ... -s bench_llfs.lua URL -- URLFILE), asking for
-- the framed answer as the gateway does. Bodies are built once, in init,
-- so that the load generator spends its time on the wire, not in Lua.
local bodies = {}
local n, i = 0, 0
local headers = {
  ["Content-Type"] = "application/json",
  ["Accept"] = "application/x-wpfs-fetch",
}
-- the fetcher's shared secret, as the gateway sends it
local secret = os.getenv("WPFS_FETCHER_SECRET")
if secret and secret ~= "" then
  headers["Authorization"] = "Bearer " .. secret
end

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" and line:sub(1, 1) ~= "#" then
      n = n + 1
      bodies[n] = '{"url":"' .. line .. '"}'
    end
  end
  -- Threads start at different places of the list so that they do not
  -- ask the same sites at once (offset is set by setup below).
  i = (offset or 0) % n
end

local threads = 0
function setup(thread)
  thread:set("offset", threads * 7919)
  threads = threads + 1
end

function request()
  i = i % n + 1
  return wrk.format("POST", "/internal/v1/fetch", headers, bodies[i])
end
