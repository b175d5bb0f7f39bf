#!/bin/bash
# A whole crawl, as fast as an impolite C crawler can go: the same generated
# world (CRAWL_SITES sites x CRAWL_PAGES pages of 5-10 KiB with 25-35 links
# each, a third across sites, robots.txt with Disallow: /private/, one site
# whose robots.txt answers 503), served by testweb with no delay, crawled in
# the same run by:
#   - wpfs-discover --scope any through the whole stack (dnsmasq, the state
#     and page cache Redis, llfs, hlfs with --min-delay-ms 0
#     --delay-factor 0), everything on this machine's cores;
#   - wget2 (Debian) -r --robots=on --max-threads=100 -H, one connection per
#     host, names resolved through a private /etc/hosts (a mount namespace:
#     needs root; skipped otherwise).
# Prints pages/s of each, the ratio wpfs / wget2 (target >= 0.75), the
# politeness violations testweb saw (two requests of a site in flight,
# fetches robots.txt refuses, pages of the 503 site: target 0 for wpfs),
# and each process's CPU per page (from /proc: user + system time).
# Knobs: CRAWL_SITES (100), CRAWL_PAGES (100), CRAWL_SEED (5), CRAWL_DUPS
# (0.05: the share of links that name a page by a second URL, which the
# crawler finds to be an exact duplicate),
# CRAWL_DISCOVER_ARGS (more wpfs-discover flags, e.g. --warc-level 6),
# CRAWL_PERF (a file: perf record -a -g of the wpfs crawl), CRAWL_PERF_DWARF
# ("hlfs|llfs|redis|cache:FILE": perf record --call-graph dwarf of that
# process alone; Debian's redis-server has no frame pointers), CRAWL_REDIS_STATS
# (1: the state Redis's commands per page, by command, after the crawl),
# CRAWL_REDIS_CONFIG ("name value ...": set on the state Redis, which runs
# with the deployed sorted-set limits, before the crawl).
. "$WPFS_ROOT/tests/lib.sh"
case ${CRAWL_PERF_DWARF-unset} in
unset|hlfs:?*|llfs:?*|redis:?*|cache:?*) ;;
*) echo "CRAWL_PERF_DWARF: hlfs, llfs, redis or cache, a colon and a file" >&2; exit 2 ;;
esac
SITES=${CRAWL_SITES:-100}
PAGES=${CRAWL_PAGES:-100}
SEED=${CRAWL_SEED:-5}
DUPS=${CRAWL_DUPS:-0.05}
TOKEN=bench-wget2-token
command -v wget2 >/dev/null || bail "wget2 is missing (make deps)"
[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || { echo "   skipped: wget2's names need a private /etc/hosts (root, unshare)"; exit 0; }

cat >"$T_DIR/sites.json" <<EOF
{ "generate": "sites=$SITES,pages=$PAGES,links=30,cross=0.33,dups=$DUPS,page_bytes=7000,seed=$SEED",
  "sites": [ { "name": "down.test", "address": "127.31.0.1", "pages": 10, "robots": { "status": 503 } } ] }
EOF
start_testweb --sites "$T_DIR/sites.json" --log-level warn
start_crawl_stack "$SITES" 512mb "$TOKEN"
[ -n "${CRAWL_REDIS_CONFIG:-}" ] && redis-cli -p "$REDIS_PORT" CONFIG SET ${CRAWL_REDIS_CONFIG} >/dev/null
for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
echo "http://down.test:$TESTWEB_PORT/" >>"$T_DIR/seeds"
now_ms() { date +%s%3N; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
hz=$(getconf CLK_TCK)

# testweb's view: pages served (GET of a page, not robots.txt), overlaps,
# disallowed fetches, pages of the 503 site.
view() {
  local sites
  sites=$(curl -s "$TESTWEB_CTL/sites")
  jq -r '[([.[].request_count] | add // 0),
           ([.[] | select(.max_in_flight > 1)] | length)] | @tsv' <<<"$sites"
}
private() {
  local n=0 i
  for i in $(seq 0 $((SITES - 1))); do
    n=$((n + $(tw_site_json "site$i.test" requests=100000 | jq '[.requests[] | select(.path | startswith("/private/"))] | length')))
  done
  echo "$n"
}
down_pages() { tw_site_json down.test requests=1000 | jq '[.requests[] | select(.path != "/robots.txt")] | length'; }

# ---- wget2 --------------------------------------------------------------------
# Its rate varies from run to run far more than wpfs's (1,600 to 4,900
# pages/s on this machine, its CPU per page with it): the best of
# WGET2_RUNS (2) runs is the line to reach.
# It saves every page as a file: in memory (/dev/shm when there is one),
# so that the disk's writeback does not slow it down.
{ cat /etc/hosts; curl -s "$TESTWEB_CTL/zone" | awk '{ print $2, $1 }'; } >"$T_DIR/hosts"
G_DIR=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "$T_DIR")/wpfs-wget2.XXXXXX")
trap 'rm -rf "$G_DIR"; t_cleanup' EXIT  # and what tests/lib.sh cleans
wget2_run() {
  curl -s -X POST "$TESTWEB_CTL/reset" >/dev/null
  rm -rf "${G_DIR:?}"/*
  local tw0 t0 t1 ticks
  tw0=$(cpu_ticks "$TESTWEB_PID")
  t0=$(now_ms)
  # the shell's children's times (fields 16, 17 of its stat) are wget2's CPU
  ticks=$(unshare -m sh -c "mount --make-rprivate / && mount --bind '$T_DIR/hosts' /etc/hosts &&
    cd '$T_DIR' && wget2 -q -r -l inf --robots=on -H --max-threads=100 --no-parent \
      -P '$G_DIR' -i '$T_DIR/seeds' --timeout=10 --tries=1 >'$T_DIR/wget2.log' 2>&1;
    awk '{ print \$16 + \$17 }' /proc/\$\$/stat")
  t1=$(now_ms)
  r_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1000 }')
  r_ticks=$ticks
  r_tw=$(( $(cpu_ticks "$TESTWEB_PID") - tw0 ))
  read -r r_req r_over < <(view)
  r_priv=$(private)
  r_down=$(down_pages)
}
g_secs=
for run in $(seq 1 "${WGET2_RUNS:-2}"); do
  wget2_run
  echo "   wget2 run $run: $r_req requests in $r_secs s"
  if [ -z "$g_secs" ] || awk -v a="$r_secs" -v b="$g_secs" 'BEGIN { exit !(a < b) }'; then
    g_secs=$r_secs g_ticks=$r_ticks g_tw=$r_tw g_req=$r_req g_over=$r_over g_priv=$r_priv g_down=$r_down
  fi
done

# ---- wpfs ----------------------------------------------------------------------
curl -s -X POST "$TESTWEB_CTL/reset" >/dev/null
redis-cli -p "$REDIS_PORT" CONFIG RESETSTAT >/dev/null
redis-cli -p "$CACHE_REDIS_PORT" CONFIG RESETSTAT >/dev/null
# every call's duration, to split the scripts' time among them
[ -n "${CRAWL_REDIS_STATS:-}" ] && redis-cli -p "$REDIS_PORT" CONFIG SET slowlog-log-slower-than 0 slowlog-max-len 1000000 >/dev/null
declare -A c0
for p in hlfs:$HLFS_PID llfs:$LLFS_PID redis:$REDIS_PID cache:$CACHE_REDIS_PID testweb:$TESTWEB_PID; do
  c0[${p%%:*}]=$(cpu_ticks "${p#*:}")
done
# CRAWL_PERF=FILE: a system-wide profile of the wpfs crawl (perf report -i FILE --comm hlfs)
[ -n "${CRAWL_PERF:-}" ] && { perf record -q -F 1999 -a -g -o "$CRAWL_PERF" 2>/dev/null & perf_pid=$!; sleep 0.5; }
if [ -n "${CRAWL_PERF_DWARF:-}" ]; then
  case ${CRAWL_PERF_DWARF%%:*} in
  hlfs) ppid=$HLFS_PID ;; llfs) ppid=$LLFS_PID ;; redis) ppid=$REDIS_PID ;; *) ppid=$CACHE_REDIS_PID ;;
  esac
  perf record -q -F 999 --call-graph dwarf,16384 -p "$ppid" -o "${CRAWL_PERF_DWARF#*:}" 2>/dev/null &
  perf_dpid=$!
  sleep 0.5
fi
t0=$(now_ms)
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --scope any --sitemaps=false --log-level warn ${CRAWL_DISCOVER_ARGS:-} \
  >"$T_DIR/wpfs.json" 2>"$T_DIR/wpfs.log" &
dpid=$!
dticks=0
# (a read after the crawler ended gives 0: the last one it gave counts)
while kill -0 "$dpid" 2>/dev/null; do
  t=$(cpu_ticks "$dpid")
  [ "$t" -gt "$dticks" ] && dticks=$t
  sleep 0.2
done
wait "$dpid"
t1=$(now_ms)
[ -n "${CRAWL_PERF:-}" ] && { kill -INT "$perf_pid"; wait "$perf_pid"; }
[ -n "${CRAWL_PERF_DWARF:-}" ] && { kill -INT "$perf_dpid"; wait "$perf_dpid"; }
read -r w_req w_over < <(view)
w_priv=$(private)
w_down=$(down_pages)
w_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1000 }')

echo "   $SITES sites x $PAGES pages (~7 KiB, 30 links), no delay; one site's robots.txt answers 503"
line() {  # name requests secs overlaps private down
  awk -v n="$1" -v r="$2" -v s="$3" -v o="$4" -v p="$5" -v d="$6" 'BEGIN {
    printf "   %-14s %7d requests in %7.2f s = %8.1f pages/s; violations: %d sites overlapped, %d /private/ pages, %d pages of the 503 site\n",
      n, r, s, r / s, o, p, d }'
}
line "wget2 (best)" "$g_req" "$g_secs" "$g_over" "$g_priv" "$g_down"
line wpfs-discover "$w_req" "$w_secs" "$w_over" "$w_priv" "$w_down"
awk -v a="$w_req" -v b="$w_secs" -v c="$g_req" -v d="$g_secs" 'BEGIN {
  printf "   ratio wpfs / wget2: x%.2f pages/s (target x0.75, zero violations)\n", (a / b) / (c / d) }'
echo "   CPU per page (ms), wpfs run:"
for p in hlfs:$HLFS_PID llfs:$LLFS_PID redis:$REDIS_PID cache:$CACHE_REDIS_PID testweb:$TESTWEB_PID; do
  n=${p%%:*}
  awk -v n="$n" -v t=$(( $(cpu_ticks "${p#*:}") - c0[$n] )) -v hz="$hz" -v r="$w_req" 'BEGIN {
    printf "     %-14s %.3f\n", n, t * 1000 / hz / r }'
done
awk -v t="$dticks" -v hz="$hz" -v r="$w_req" 'BEGIN { printf "     %-14s %.3f\n", "wpfs-discover", t * 1000 / hz / r }'
# Per page is per request above; an exact duplicate costs the crawler
# little (it is not parsed), so its CPU per parsed page says what a page
# of new content costs it.
jq -r --arg t "$dticks" --arg hz "$hz" '"   crawler: \(.pages) results, \(.dup_exact) exact duplicates (not parsed), \(.parsed) parsed: \(($t | tonumber) * 1000 / ($hz | tonumber) / .parsed * 1000 | round / 1000) ms per parsed page"' "$T_DIR/wpfs.json" 2>/dev/null
curl -s "$HLFS_URL/metrics" | awk '$1 == "hlfs_results_fresh_total" { f = $2 }
  $1 == "hlfs_results_served_total" { s = $2 }
  END { printf "   results given the page kept by the fetching replica: %d of %d\n", f, s }'
warc=$(find "$T_DIR/out" -name "*.warc.gz" -exec cat {} + | wc -c)
awk -v b="$warc" -v r="$w_req" 'BEGIN { printf "   WARC: %.0f bytes per page (gzip)\n", b / r }'
echo "   CPU per page (ms), wget2 run:"
awk -v t="${g_ticks:-0}" -v hz="$hz" -v r="$g_req" 'BEGIN { printf "     %-14s %.3f\n", "wget2", t * 1000 / hz / r }'
awk -v t="$g_tw" -v hz="$hz" -v r="$g_req" 'BEGIN { printf "     %-14s %.3f\n", "testweb", t * 1000 / hz / r }'
if [ -n "${CRAWL_REDIS_STATS:-}" ]; then
  echo "   state Redis, per page (calls, commands run inside scripts included; us of its CPU):"
  redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' | awk -F'[:,=]' -v r="$w_req" '
    /^cmdstat_/ { sub("cmdstat_", "", $1); printf "     %-16s %6.2f calls %7.2f us\n", $1, $3 / r, $5 / r }' | sort -k4 -rn
  # a read (write) is one read(2) (write(2)) of a connection: how many
  # commands came (went) together
  for p in redis:$REDIS_PORT cache:$CACHE_REDIS_PORT; do
    redis-cli -p "${p#*:}" INFO stats | tr -d '\r' | awk -F: -v n="${p%%:*}" -v r="$w_req" '
      $1 == "total_reads_processed" { rd = $2 } $1 == "total_writes_processed" { wr = $2 }
      END { printf "   %s Redis: %.2f reads, %.2f writes of its connections per page\n", n, rd / r, wr / r }'
  done
  echo "   scripts and functions, per page (calls; us):"
  redis-cli -p "$REDIS_PORT" --json SLOWLOG GET 1000000 |
    jq -r --arg r "$w_req" '[.[] | select(.[3][0] | ascii_upcase | . == "EVALSHA" or . == "FCALL")
      | { s: (if (.[3][0] | ascii_upcase) == "FCALL" then .[3][1] | sub("_[0-9a-f]{12}$"; "")
              else .[3][1][0:8] end), a: (.[3] | length), t: .[2] }] | group_by(.s)[]
      | (map(.t) | sort) as $t
      | "     \(.[0].s) (\(.[0].a) args) \(length / ($r | tonumber) * 100 | round / 100) calls \($t | add / ($r | tonumber) * 100 | round / 100) us; per call median \($t[length / 2 | floor]) us, p90 \($t[length * 9 / 10 | floor]) us"'
fi
[ "$w_over" -eq 0 ] && [ "$w_priv" -eq 0 ] && [ "$w_down" -eq 0 ]
