#!/bin/bash
# testweb under load (wrk, HTTP/1.1 keep-alive): requests/s for one site and
# for 10,000 sites (a wrk script rotates the Host header over them), against
# nginx serving a static file of the same size in the same run. testweb's
# own CPU use is printed too: it must never be a benchmark's bottleneck.
#   BENCH_SECONDS (default 5), BENCH_CONNS (default 50), BENCH_REPEAT (default 2:
#   the best of the runs is shown, as the machine may be shared)
. "$WPFS_ROOT/tests/lib.sh"
secs=${BENCH_SECONDS:-5}
conns=${BENCH_CONNS:-50}
repeat=${BENCH_REPEAT:-2}
sites=10000

cat >"$T_DIR/rotate.lua" <<'LUA'
-- One prepared request per site, taken in turn: the Host names a site.
local n = tonumber(os.getenv("ROTATE_SITES") or "1")
local reqs, k = {}, 0
init = function(args)
  for i = 0, n - 1 do
    reqs[i + 1] = wrk.format("GET", wrk.path, { Host = "site" .. i .. ".test" })
  end
  k = math.random(n) - 1
end
request = function()
  k = (k + 1) % n
  return reqs[k + 1]
end
LUA

# bench_run LABEL URL [SITES]: prints "LABEL rps" (best of the runs) and
# sets RPS; wrk's error lines, if any, are printed with it.
bench_run() {
  local label=$1 url=$2 n=${3:-0} out r i errs=""
  RPS=0
  for ((i = 0; i < repeat; i++)); do
    if [ "$n" -gt 0 ]; then
      out=$(ROTATE_SITES=$n wrk -t1 -c"$conns" -d"${secs}s" -s "$T_DIR/rotate.lua" "$url")
    else
      out=$(wrk -t1 -c"$conns" -d"${secs}s" "$url")
    fi
    r=$(awk '/^Requests\/sec:/ { printf "%d", $2 }' <<<"$out")
    [ "${r:-0}" -gt "$RPS" ] && RPS=$r
    errs+=$(awk '/Non-2xx|Socket errors/ { printf " %s", $0 }' <<<"$out")
  done
  printf '   %-44s %8d req/s%s\n' "$label" "$RPS" "${errs:+ (${errs# })}"
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

start_testweb --generate "sites=$sites,pages=5" --log-level warn
TW_PID=$TESTWEB_PID
page="$T_DIR/www/p/1.html"
mkdir -p "$T_DIR/www/p"
curl -s "http://127.10.0.1:$TESTWEB_PORT/p/1.html" >"$page"
size=$(wc -c <"$page")

start_nginx_static "$T_DIR/www" text/html
wait_for 10 curl -sf "http://127.0.0.1:$NGINX_PORT/p/1.html" ||
  { cat "$T_DIR/nginx.log" "$T_DIR/nginx/error.log"; bail "nginx did not start"; }

echo "   page of $size bytes, wrk -t1 -c$conns -d${secs}s, $(nproc) cores"
bench_run "nginx, static file" "http://127.0.0.1:$NGINX_PORT/p/1.html"
n1=$RPS
bench_run "nginx, static file, Host rotated" "http://127.0.0.1:$NGINX_PORT/p/1.html" $sites
nr=$RPS
reqs() { tw_stats | jq .requests; }
t0=$(cpu_ticks "$TW_PID") q0=$(reqs)
bench_run "testweb, 1 site (127.10.0.1)" "http://127.10.0.1:$TESTWEB_PORT/p/1.html"
t1=$(cpu_ticks "$TW_PID") q1=$(reqs)
w1=$RPS
bench_run "testweb, $sites sites (Host rotated)" "http://127.0.0.1:$TESTWEB_PORT/p/1.html" $sites
t2=$(cpu_ticks "$TW_PID") q2=$(reqs)
wr=$RPS
hz=$(getconf CLK_TCK)
awk -v a="$w1" -v b="$n1" -v c="$wr" -v d="$nr" -v n="$sites" 'BEGIN {
  printf "   ratio testweb/nginx, 1 site:              %.2f\n", b ? a / b : 0
  printf "   ratio testweb/nginx, %d sites:         %.2f\n", n, d ? c / d : 0 }'
# CPU time per request does not depend on who else uses the machine: it
# tells how many requests/s one core of testweb could serve.
cpu_line() {  # label ticks requests
  awk -v l="$1" -v t="$2" -v q="$3" -v hz="$hz" -v s="$((secs * repeat))" 'BEGIN {
    us = q ? t * 1e6 / hz / q : 0
    printf "   testweb %-16s %3.0f%% of a core while loaded, %.1f us CPU/request (~%d req/s per core)\n",
           l ":", 100 * t / hz / s, us, us ? 1e6 / us : 0 }'
}
cpu_line "1 site" "$((t1 - t0))" "$((q1 - q0))"
cpu_line "$sites sites" "$((t2 - t1))" "$((q2 - q1))"
st=$(tw_stats)
printf '   testweb counted %s requests, %s sites asked, %s requests kept in records\n' \
  "$(jq .requests <<<"$st")" "$(jq .active_sites <<<"$st")" "$(jq .requests_kept <<<"$st")"
