-- Load for bench_cache.sh: each request is the next of a list read in init
-- (wrk ... -s bench_cache.lua URL -- MODE FILE [TOKEN]), so that the load
-- generator spends its time on the wire, not in Lua. Requests are
-- formatted once, in init.
--   fetch FILE TOKEN  POST /v1/fetch {"url": LINE, "max_age_s": 31536000}
--   page  FILE TOKEN  GET /v1/pages?url=LINE (LINE already percent-encoded)
--   get   FILE        GET LINE (a path: the static server)
-- With WRK_PACE_MS set, each connection waits that many milliseconds on
-- average (whole milliseconds, drawn so that the mean is right) before its
-- next request: a paced load (connections / (pace + latency) requests/s)
-- instead of as fast as the server answers. wrk's latency figures do not
-- include the wait.
local reqs = {}
local n, i = 0, 0

function init(args)
  local mode, file, token = args[1], args[2], args[3]
  local auth = token and { ["Authorization"] = "Bearer " .. token } or {}
  for line in io.lines(file) do
    if line ~= "" then
      n = n + 1
      if mode == "fetch" then
        auth["Content-Type"] = "application/json"
        reqs[n] = wrk.format("POST", "/v1/fetch", auth,
                             '{"url":"' .. line .. '","max_age_s":31536000}')
      elseif mode == "page" then
        reqs[n] = wrk.format("GET", "/v1/pages?url=" .. line, auth)
      else
        reqs[n] = wrk.format("GET", line, auth)
      end
    end
  end
  i = (offset or 0) % n
end

-- Threads start at different places of the list.
local threads = 0
function setup(thread)
  thread:set("offset", threads * 97)
  threads = threads + 1
end

function request()
  i = i % n + 1
  return reqs[i]
end

local pace = tonumber(os.getenv("WRK_PACE_MS") or "")
if pace then
  local lo = math.floor(pace)
  local frac = pace - lo
  function delay()
    return math.random() < frac and lo + 1 or lo
  end
end
