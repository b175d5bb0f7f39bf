#!/bin/bash
# A broad crawl under the product's politeness: the broad web
# (tests/harness_broadweb.sh: BROADWEB_HOSTS sites, 2000 by default, on
# BROADWEB_IPS shared addresses, 16; HTTPS with HTTP/2 and HTTP; dead,
# refusing, hanging and slow hosts; robots.txt disallowing, with
# Crawl-delay: 1, missing or 503), served by nginx, crawled in the same
# run by:
#   - wpfs-discover --scope any through the whole stack (dnsmasq, the state
#     and page cache Redis, llfs, hlfs with the default --min-delay-ms 1000
#     and --delay-factor 2);
#   - wget2 (Debian) -r --robots=on -H --max-threads=100, names resolved
#     through a private /etc/hosts (a mount namespace: needs root; skipped
#     otherwise), which keeps no delay between requests to a host.
# Prints for each: the time to 99 % of the pages (from nginx's log) against
# the politeness bound (the busiest host's requests, each one delay after
# the last), the politeness violations nginx saw, connections per host
# and requests per connection (for wpfs also the crawl summary's, the
# gateway's count per site); for wpfs, CPU per page of each process
# (over the whole run, and over the crawl to its last page: the run goes
# on while the pages of hosts whose robots.txt answers 503 wait for the
# robots.txt policy) and the state Redis's commands a request.
# Knobs: BROADWEB_HOSTS, BROADWEB_SEED (1), BROADWEB_IPS, BROADWEB_LLFS_ARGS
# (more llfs flags), BROADWEB_WGET2 (0: skip wget2), BROADWEB_MIN_DELAY
# (1000) and BROADWEB_FACTOR (2): the gateway's politeness (0 and 0: no
# delay; the bound is then the busiest host's requests back to back, which
# is 0 here, and pages/s against wget2's is the figure), BROADWEB_DENSE
# (pages per host: the site-dense web of tests/tools/broadweb_world.pl,
# e.g. BROADWEB_HOSTS=100 BROADWEB_DENSE=100) and BROADWEB_SCHEME (http
# or https: every host on it).
. "$WPFS_ROOT/tests/lib.sh"
export LC_ALL=C
HOSTS=${BROADWEB_HOSTS:-2000}
SEED=${BROADWEB_SEED:-1}
MIN_DELAY=${BROADWEB_MIN_DELAY:-1000}
FACTOR=${BROADWEB_FACTOR:-2}
TOKEN=bench-broadweb-token
command -v nginx >/dev/null || bail "nginx is missing (make deps)"
now_ms() { date +%s%3N; }
# Requests per TLS connection, from nginx's log (its 9th field: the scheme).
tls_rpc() {
  awk '$9 == "https" { r++; c[$4] = 1 } END { printf "%.2f", length(c) ? r / length(c) : 0 }' "$1"
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
hz=$(getconf CLK_TCK)

t=$(now_ms)
broadweb_world "$HOSTS" "$SEED" "${BROADWEB_IPS:-16}"
broadweb_certs
start_broadweb
echo "   world: $HOSTS hosts on ${BROADWEB_IPS:-16} addresses, written in $(( $(now_ms) - t )) ms;" \
     "$(awk -F'\t' '$5 == "page"' "$BW_DIR/expect.tsv" | wc -l) pages to fetch"
start_redis
start_redis_cache 512mb
start_llfs --log-level warn --tls-ca-file "$BW_CA" --connect-timeout-ms 5000 --timeout-ms 10000 \
  ${BROADWEB_LLFS_ARGS:-}
start_hlfs a --token "$TOKEN" --min-delay-ms "$MIN_DELAY" --delay-factor "$FACTOR" --log-level warn \
  --cache-redis "127.0.0.1:$CACHE_REDIS_PORT"
WANT=$(awk -F'\t' '$5 == "page"' "$BW_DIR/expect.tsv" | wc -l)

# The politeness bound: no crawl of the world can end sooner than its
# busiest host allows (robots.txt, its pages and sitemap, one delay apart;
# a slow host's pages take about 1 s, then twice that of delay).
bound=$(awk -v min="$MIN_DELAY" -F'\t' '($2 == "live" || $2 == "slow") && $3 != "e503" {
          gap = $3 == "delay" && 1000 > min ? 1000 : min
          if ($2 == "slow") gap = 1000 + (2000 > gap ? 2000 : gap)
          t = ($6 + $7) * gap; if (t > b) b = t } END { print b + 0 }' "$BW_DIR/world.tsv")

# What nginx saw of one crawl that began at T0 (ms): "ms_to_99 pages
# violations hosts connections".
seen() {
  local t0=$1 k
  k=$(( (WANT * 99 + 99) / 100 ))
  awk -v t0="$t0" '$5 == 200 && $7 != "/robots.txt" { print $2 * 1000 - t0 }' "$BW_LOG" | sort -n |
    awk -v k="$k" 'NR == k { t = $1 } END { printf "%d %d ", (NR >= k ? t : -1), NR }'
  echo "$(broadweb_politeness "$MIN_DELAY" "$FACTOR" 30 | wc -l)" \
       "$(cut -d' ' -f1 "$BW_LOG" | sort -u | wc -l)" \
       "$(awk '{ c[$1 " " $4] = 1 } END { print length(c) }' "$BW_LOG")" \
       "$(awk '$7 ~ /^\/private\//' "$BW_LOG" | wc -l)" \
       "$(awk -F'\t' '$3 == "e503" { print $1 }' "$BW_DIR/world.tsv" | sort |
          join - <(sort -k1,1 "$BW_LOG") | awk '$7 != "/robots.txt"' | wc -l)"
}
report() {  # name secs seen-line
  local r
  read -r ms pages viol hosts conns priv e503 <<<"$3"
  r=$(wc -l <"$BW_LOG")
  awk -v n="$1" -v s="$2" -v ms="$ms" -v p="$pages" -v b="$bound" -v v="$viol" -v h="$hosts" \
      -v c="$conns" -v r="$r" -v pv="$priv" -v e="$e503" 'BEGIN {
    if (b > 0)
      printf "   %-14s %6d pages in %7.2f s; 99 %% at %7.2f s = x%.2f the politeness bound (%.1f s)\n", n, p, s, ms / 1000, ms / b, b / 1000
    else
      printf "   %-14s %6d pages in %7.2f s; 99 %% at %7.2f s (no delay: no bound)\n", n, p, s, ms / 1000
    printf "   %-14s %.0f pages/s\n", "", p / s
    printf "   %-14s violations: %d requests too soon or at once, %d disallowed, %d pages of hosts whose robots.txt answers 503\n", "", v, pv, e
    printf "   %-14s %.2f connections per host, %.2f requests per connection\n", "", c / h, r / c }'
}

# Commands the state Redis ran (those of its scripts too): "name calls" a line.
redis_calls() {
  redis-cli -p "$REDIS_PORT" INFO commandstats |
    awk -F'[_:=,]' '/^cmdstat_/ { print $2, $4 }' | sort
}

# ---- wpfs ----------------------------------------------------------------------
declare -A c0
redis_calls >"$T_DIR/redis-calls0"
for p in hlfs:$HLFS_PID llfs:$LLFS_PID redis:$REDIS_PID cache:$CACHE_REDIS_PID nginx:$NGINX_PID; do
  c0[${p%%:*}]=$(cpu_ticks "${p#*:}")
done
: >"$BW_LOG"
t0=$(now_ms)
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$BW_DIR/seeds" \
  --out "$T_DIR/out" --scope any --log-level warn >"$T_DIR/wpfs.json" 2>"$T_DIR/wpfs.log" &
dpid=$!
dticks=0
: >"$T_DIR/llfs-load"
: >"$T_DIR/cpu-trace"
while kill -0 "$dpid" 2>/dev/null; do
  t=$(cpu_ticks "$dpid")
  [ "$t" -gt "$dticks" ] && dticks=$t
  # requests served so far and each process's CPU: the crawl's own CPU,
  # without the wait at its end (pages of hosts whose robots.txt answers
  # 503 stay queued until the robots.txt policy gives them up)
  echo "$(wc -l <"$BW_LOG") $(( $(now_ms) - t0 )) $(cpu_ticks "$HLFS_PID") $(cpu_ticks "$LLFS_PID") $(cpu_ticks "$REDIS_PID")" \
       "$(cpu_ticks "$CACHE_REDIS_PID") $dticks" >>"$T_DIR/cpu-trace"
  # what llfs has at this moment: is it the bottleneck (a queue) or idle?
  curl -s -m 1 "$LLFS_URL/metrics" | awk '$1 == "llfs_fetches_in_flight" { f = $2 }
    $1 == "llfs_fetches_held" { h = $2 } $1 == "llfs_fetches_queued" { q = $2 }
    END { print f + 0, h + 0, q + 0 }' >>"$T_DIR/llfs-load"
  sleep 0.2
done
wait "$dpid"
w_rc=$?
w_secs=$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { print (b - a) / 1000 }')
w_seen=$(seen "$t0")
cp "$BW_LOG" "$T_DIR/wpfs-access.log"
report wpfs-discover "$w_secs" "$w_seen"
# The gateway's count of connections per site, from the crawl summary,
# beside what nginx saw (hosts and connections, the 4th and 5th of seen).
tail -1 "$T_DIR/wpfs.json" | jq -r '.connections // {} | "\(.hosts // 0) \(.opened // 0) \(.max_per_host // 0) \(.hosts_over_one // 0)"' |
  awk -v nh="$(cut -d' ' -f4 <<<"$w_seen")" -v nc="$(cut -d' ' -f5 <<<"$w_seen")" '{
    printf "   %-14s summary: %d connections opened to %d hosts (%.2f per host, at most %d to one, %d hosts over one); nginx: %d to %d hosts (%.2f per host)\n",
      "", $2, $1, $1 ? $2 / $1 : 0, $3, $4, nc, nh, nh ? nc / nh : 0 }'
# ...and per host: GET /v1/sites against the connections nginx saw of it.
awk '{ c[$1 " " $4] = 1 } END { for (k in c) { split(k, a, " "); n[a[1]]++ } for (h in n) print h, n[h] }' \
  "$BW_LOG" | sort >"$T_DIR/nginx-conns"
while read -r h n; do
  echo "$h $n $(GW_TOKEN=$TOKEN gw GET "/v1/sites/$h" | jq -r '.connections_opened // 0')"
done <"$T_DIR/nginx-conns" >"$T_DIR/conns-cmp"
awk '$2 != $3 { d++; if (d <= 5) ex = ex sprintf(" %s (nginx %d, gateway %d)", $1, $2, $3) }
  END { printf "   %-14s GET /v1/sites against nginx, per host: %d of %d differ%s\n", "", d, NR, ex }' \
  "$T_DIR/conns-cmp"
w_pages=$(wc -l <"$BW_LOG")
echo "   CPU per request (ms), wpfs run ($w_pages requests):"
for p in hlfs:$HLFS_PID llfs:$LLFS_PID redis:$REDIS_PID cache:$CACHE_REDIS_PID nginx:$NGINX_PID; do
  n=${p%%:*}
  awk -v n="$n" -v t=$(( $(cpu_ticks "${p#*:}") - c0[$n] )) -v hz="$hz" -v r="$w_pages" 'BEGIN {
    printf "     %-14s %.3f\n", n, t * 1000 / hz / r }'
done
awk -v t="$dticks" -v hz="$hz" -v r="$w_pages" 'BEGIN { printf "     %-14s %.3f\n", "wpfs-discover", t * 1000 / hz / r }'
redis_calls | join -a1 - "$T_DIR/redis-calls0" | awk -v r="$w_pages" '{ n = $2 - $3; t += n
    if (n > 0) l = l sprintf(" %s %.2f,", $1, n / r) }
  END { sub(/,$/, "", l); printf "   state Redis: %.2f commands a request (scripts'"'"' too):%s\n", t / r, l }'
# The crawl log against the world: pages that should have been fetched and were not.
jq -r 'select(.outcome == "ok" and .status == 200) | .url' "$T_DIR/out/crawl.jsonl" | sort >"$T_DIR/got"
awk -F'\t' '$5 == "page" { print $1 }' "$BW_DIR/expect.tsv" | sort | comm -23 - "$T_DIR/got" >"$T_DIR/lost"
echo "   wpfs-discover: $(wc -l <"$T_DIR/lost") pages not fetched$( [ -s "$T_DIR/lost" ] && echo ", as:" )"
jq -r '[.url, .outcome, (.status | tostring)] | @tsv' "$T_DIR/out/crawl.jsonl" | sort |
  join -t $'\t' "$T_DIR/lost" - | awk -F'\t' '{ print $2, $3 }' | sort | uniq -c | sed 's/^/     /'
curl -s "$LLFS_URL/metrics" | awk '$1 == "llfs_connections_opened_total" { o = $2 }
  $1 == "llfs_connections_reused_total" { r = $2 }
  $1 == "llfs_connection_hosts_total" { h = $2 }
  $1 == "llfs_tls_handshakes_total" { t = $2 }
  $1 == "llfs_tls_resumed_total" { tr = $2 }
  END { printf "   llfs: %d connections opened to %d hosts (%.2f per host), %d fetches on a kept-alive one;" \
          " %d TLS handshakes, %d resumed\n", o, h, h ? o / h : 0, r, t, tr }'
# Whole stack: every process the crawl runs (nginx, the origin, aside).
w_cpu=$(awk -v hz="$hz" -v r="$w_pages" -v d="$dticks" 'BEGIN { printf "%.3f", d * 1000 / hz / r }')
for p in hlfs:$HLFS_PID llfs:$LLFS_PID redis:$REDIS_PID cache:$CACHE_REDIS_PID; do
  n=${p%%:*}
  w_cpu=$(awk -v a="$w_cpu" -v t=$(( $(cpu_ticks "${p#*:}") - c0[$n] )) -v hz="$hz" -v r="$w_pages" \
    'BEGIN { printf "%.3f", a + t * 1000 / hz / r }')
done
# The crawl's own CPU: up to the first sample after the last page served
# (what follows is the wait for the pages of hosts whose robots.txt
# answers 503, a robots.txt request now and then), per request served
# until that sample.
last_ms=$(awk -v t0="$t0" '$5 == 200 && $7 != "/robots.txt" { m = $2 * 1000 - t0; if (m > x) x = m }
  END { printf "%d", x }' "$T_DIR/wpfs-access.log")
w_crawl=$(awk -v hz="$hz" -v last="$last_ms" -v h0="${c0[hlfs]}" -v l0="${c0[llfs]}" -v r0="${c0[redis]}" \
    -v k0="${c0[cache]}" '$2 >= last && $1 > 0 { s = $2 / 1000; q = 1000 / hz / $1
    h = ($3 - h0) * q; l = ($4 - l0) * q; r = ($5 - r0) * q; k = ($6 - k0) * q; d = $7 * q
    printf "   CPU per request (ms) of the crawl (%d requests in %.1f s, to the last page; the wait for the pages of hosts" \
      " whose robots.txt answers 503 left out): hlfs %.3f, llfs %.3f, redis %.3f, cache %.3f, wpfs-discover %.3f;" \
      " whole stack but nginx %.3f (llfs %.0f %%)\n",
      $1, s, h, l, r, k, d, h + l + r + k + d, 100 * l / (h + l + r + k + d); exit }' "$T_DIR/cpu-trace")
echo "$w_crawl"
w_crawl_cpu=$(sed -n 's/.*whole stack but nginx \([0-9.]*\).*/\1/p' <<<"$w_crawl")
w_rpc=$(tls_rpc "$T_DIR/wpfs-access.log")
echo "   wpfs: CPU a request of the whole stack but nginx $w_cpu ms; $w_rpc requests per TLS connection"
# The fetch time the gateway multiplies by its delay factor: llfs's, end
# to end (queue, DNS, connect, TLS, transfer), not nginx's request time.
jq -r 'select(.status == 200) | .ms' "$T_DIR/out/crawl.jsonl" | sort -n |
  awk -v f="$FACTOR" -v min="$MIN_DELAY" '{ a[NR] = $1; s += $1; if (f * $1 > min) over++ }
    END { if (NR) printf "   wpfs: fetch time as the gateway sees it: mean %.0f ms, p90 %d ms; %d of %d fetches (%.0f %%) made the next delay longer than %d ms\n",
            s / NR, a[int(NR * 0.9) + 1], over, NR, over * 100 / NR, min }'
awk '{ f += $1; h += $2; q += $3; if ($3 > 0) qn++ } END { if (NR)
  printf "   llfs during the crawl: %.0f fetches in flight, %.0f held, %.0f queued on average (%d of %d samples with a queue)\n",
    f / NR, h / NR, q / NR, qn, NR }' "$T_DIR/llfs-load"
# Where the time over the bound goes, per host as nginx saw it: when the
# host was first asked (discovery), and how much longer than its delay
# each gap between two of its requests was (the delay: the largest of
# the minimum, its Crawl-delay and FACTOR x the last response time).
awk -v min="$MIN_DELAY" -v factor="$FACTOR" -v t0="$t0" '
  FNR == NR { if ($3 == "delay") cd[$1] = 1000; next }
  { end = $2 * 1000; rt = $3 * 1000; start = end - rt
    if (!($1 in last)) { first[$1] = start - t0; nf++ }
    else { want = min; if (cd[$1] > want) want = cd[$1]
           if (factor * lastrt[$1] > want) want = factor * lastrt[$1]
           x = start - last[$1] - want; n++; sum += x; if (x > 1000) big++ }
    last[$1] = end; lastrt[$1] = rt }
  END { for (h in first) fs += first[h]
        printf "   wpfs: hosts first asked %.1f s after the start on average; gaps %.0f ms over the delay on average, %d of %d over 1 s\n",
          fs / nf / 1000, sum / n, big, n }' "$BW_DIR/world.tsv" \
  <(awk '{ printf "%s %.3f %s\n", $1, $2 - $3, $0 }' "$T_DIR/wpfs-access.log" | sort -k1,1 -k2,2n | cut -d' ' -f3-)

# ---- wget2 ---------------------------------------------------------------------
g_rc=0
if [ "${BROADWEB_WGET2:-1}" = 0 ]; then
  echo "   wget2: skipped (BROADWEB_WGET2=0)"
elif ! command -v wget2 >/dev/null || ! { [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; }; then
  echo "   wget2: skipped (missing, or no private /etc/hosts: needs root and unshare)"
else
  { cat /etc/hosts; cat "$BW_DIR/hosts"; } >"$T_DIR/hosts"
  G_DIR=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "$T_DIR")/wpfs-wget2.XXXXXX")
  trap 'rm -rf "$G_DIR"; t_cleanup' EXIT  # and what tests/lib.sh cleans
  : >"$BW_LOG"
  n0=$(cpu_ticks "$NGINX_PID")
  t0=$(now_ms)
  ticks=$(unshare -m sh -c "mount --make-rprivate / && mount --bind '$T_DIR/hosts' /etc/hosts &&
    cd '$T_DIR' && wget2 -q -r -l inf --robots=on -H --max-threads=100 --no-parent \
      --ca-certificate='$BW_CA' -P '$G_DIR' -i '$BW_DIR/seeds' --timeout=10 --tries=1 \
      >'$T_DIR/wget2.log' 2>&1;
    awk '{ print \$16 + \$17 }' /proc/\$\$/stat")
  g_secs=$(awk -v a="$t0" -v b="$(now_ms)" 'BEGIN { print (b - a) / 1000 }')
  report "wget2" "$g_secs" "$(seen "$t0")"
  g_reqs=$(wc -l <"$BW_LOG")
  g_cpu=$(awk -v t="${ticks:-0}" -v hz="$hz" -v r="$g_reqs" 'BEGIN { printf "%.3f", t * 1000 / hz / r }')
  g_rpc=$(tls_rpc "$BW_LOG")
  awk -v t=$(( $(cpu_ticks "$NGINX_PID") - n0 )) -v hz="$hz" -v r="$g_reqs" -v g="$g_cpu" 'BEGIN {
    printf "   CPU per request (ms), wget2 run: wget2 %.3f, nginx %.3f\n", g, t * 1000 / hz / r }'
  echo "   wget2: $g_rpc requests per TLS connection"
  awk -v ws="$w_secs" -v gs="$g_secs" -v wp="$(awk '$5 == 200 && $7 != "/robots.txt"' "$T_DIR/wpfs-access.log" | wc -l)" \
      -v gp="$(awk '$5 == 200 && $7 != "/robots.txt"' "$BW_LOG" | wc -l)" 'BEGIN {
    printf "   wpfs against wget2: pages/s x%.2f\n", (gp > 0 && ws > 0 ? (wp / ws) / (gp / gs) : 0) }'
  awk -v wc="$w_cpu" -v gc="$g_cpu" -v wr="$w_rpc" -v gr="$g_rpc" 'BEGIN {
    printf "   wpfs against wget2: CPU a request x%.2f (target <= 1.5), requests per TLS connection x%.2f (target >= 0.9)\n",
      (gc > 0 ? wc / gc : 0), (gr > 0 ? wr / gr : 0) }'
  awk -v wc="${w_crawl_cpu:-0}" -v gc="$g_cpu" 'BEGIN {
    printf "   wpfs against wget2: CPU a request of the crawl (to its last page) x%.2f (target <= 1.5)\n", (gc > 0 ? wc / gc : 0) }'
fi
read -r _ _ w_viol _ _ w_priv w_e503 <<<"$w_seen"
[ "$w_rc" -eq 0 ] && [ "$((w_viol + w_priv + w_e503))" -eq 0 ] && [ ! -s "$T_DIR/lost" ] && [ "$g_rc" -eq 0 ]
