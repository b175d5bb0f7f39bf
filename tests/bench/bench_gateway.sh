#!/bin/bash
# The gateway end to end (redis-server + llfs + hlfs replicas + testweb),
# three parts, each bounded to about a minute; figures are recorded in
# docs/benchmarks.md ("## Gateway").
#  (a) throughput: 100,000 URLs over 1,000 sites, no politeness delay,
#      submitted in 20 batches of 5,000: pages/s of the whole stack with 1
#      and with 2 replicas, next to the fetcher driven directly
#      (bench_gateway_llfs, POST /internal/v1/fetch of the same URLs at the
#      same concurrency as one replica's budget); each run stops after
#      BENCH_CAP_S seconds (60) and counts what was done by then;
#  (b) politeness-bound: 50 sites x 20 pages with Crawl-delay 0.5 s; the
#      finishing time against its minimum, pages x delay = 10 s (target:
#      within 10 %);
#  (c) memory: 1,000,000 URLs queued (1,000 sites, a 1 h minimum delay so
#      nothing drains): Redis bytes per queued URL (INFO used_memory;
#      target <= 150) and the replica's RSS with 0, 5,000 and 1,000,000
#      URLs queued (target: independent of the queue).
# Knobs: BENCH_PARTS (default "a b c"), BENCH_CAP_S (60).
. "$WPFS_ROOT/tests/lib.sh"
PARTS=${BENCH_PARTS:-a b c}
CAP_S=${BENCH_CAP_S:-60}
SITES=1000
BATCH=5000
TOKEN=bench-gateway-token
BUDGET=256
rc=0

start_redis
REDIS_PID=$BG_PID
start_testweb --generate "sites=$SITES,pages=101" --record-max 0 --log-level warn
TW_PORT=$TESTWEB_PORT TW_PID=$TESTWEB_PID
start_llfs --log-level warn
rcli() { redis-cli -p "$REDIS_PORT" "$@"; }
now_ms() { date +%s%3N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

# Batch k of a run: BATCH URLs, site-major (page p of every site, then
# page p+1), pages counted from first_page.
batch() {  # k first_page port
  awk -v k="$1" -v p0="$2" -v n="$SITES" -v b="$BATCH" -v port="$3" 'BEGIN {
    printf "{\"urls\":["
    for(x = k * b; x < (k + 1) * b; x++) {
      s = x % n
      printf "%s\"http://127.10.%d.%d:%d/p/%d.html\"", (x > k * b ? "," : ""),
             int(s / 250), s % 250 + 1, port, p0 + int(x / n)
    }
    printf "]}" }'
}
submit() {  # replica-url file: prints the accepted count
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    --data-binary @"$2" "$1/v1/batches" | jq .accepted
}
stat_sum() {  # jq-path url...: the sum over replicas
  local q=$1 u n=0
  shift
  for u in "$@"; do
    n=$((n + $(curl -s -H "Authorization: Bearer $TOKEN" "$u/v1/stats" | jq "$q")))
  done
  echo "$n"
}
REPLICAS=()
replicas() {  # n args...: fresh Redis state, n replicas started
  local n=$1 i
  shift
  stop_replicas
  rcli FLUSHALL >/dev/null
  for i in $(seq 1 "$n"); do
    start_hlfs "r$i" --token "$TOKEN" --log-level warn "$@"
    REPLICAS+=("$HLFS_URL")
  done
}
stop_replicas() {
  local v
  for v in ${!HLFS_PID_*}; do
    kill -TERM "${!v}" 2>/dev/null && wait "${!v}" 2>/dev/null
    unset "$v"
  done
  REPLICAS=()
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# "name us" per page for each process group, between two cpu snapshots.
CPU_NAMES=(redis llfs testweb hlfs)
cpu_snap() {  # hlfs-pids...: prints the four totals
  echo "$(cpu_ms "$REDIS_PID") $(cpu_ms "$LLFS_PID") $(cpu_ms "$TW_PID") $(cpu_ms "$@")"
}
cpu_per_page() {  # "before" "after" pages
  local -a a=($1) b=($2)
  local i out=""
  for i in 0 1 2 3; do
    out="$out ${CPU_NAMES[i]} $(( (b[i] - a[i]) * 1000 / $3 ))"
  done
  echo "CPU us/page:$out"
}

# ---- (a) throughput ------------------------------------------------------
stack_run() {  # replicas: prints pages/s, leaves the figures in STACK_*
  local n=$1 total=$((SITES * 100)) k t0 t1 done=0 acc=0
  replicas "$n" --min-delay-ms 0 --delay-factor 0 --budget "$BUDGET"
  local pids=() v c0
  for v in ${!HLFS_PID_*}; do pids+=("${!v}"); done
  c0=$(cpu_snap "${pids[@]}")
  t0=$(now_ms)
  for k in $(seq 0 $((total / BATCH - 1))); do
    batch "$k" 1 "$TW_PORT" >"$T_DIR/batch.json"
    acc=$((acc + $(submit "${REPLICAS[k % n]}" "$T_DIR/batch.json")))
  done
  STACK_SUBMIT_S=$(awk -v t=$(( $(now_ms) - t0 )) 'BEGIN { printf "%.1f", t / 1000 }')
  while [ "$done" -lt "$total" ] && [ $(( $(now_ms) - t0 )) -lt $((CAP_S * 1000)) ]; do
    sleep 0.2
    done=$(stat_sum .state.completed "${REPLICAS[@]}")
  done
  t1=$(now_ms)
  STACK_DONE=$done
  STACK_ACC=$acc
  STACK_S=$(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", t / 1000 }')
  STACK_PPS=$(awk -v n="$done" -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1000 / t }')
  STACK_ROBOTS=$(stat_sum .scheduler.robots_fetches "${REPLICAS[@]}")
  STACK_CPU=$(cpu_per_page "$c0" "$(cpu_snap "${pids[@]}")" "$done")
}

part_a() {
  echo "(a) throughput: 100,000 URLs, 1,000 sites, no delays, $(nproc) cores shared by all" \
    "(load average now $(cut -d' ' -f1 /proc/loadavg))"
  local direct dps c0
  c0=$(cpu_snap)
  direct=$("$WPFS_BIN/bench/bench_gateway_llfs" --llfs "$LLFS_URL" --sites "$SITES" \
    --pages 100 --port "$TW_PORT" --parallel "$BUDGET" --seconds "$CAP_S") \
    || { echo "   bench_gateway_llfs failed: $direct"; rc=1; }
  dps=$(jq -r '.fetches_per_s | floor' <<<"$direct")
  printf '   %-34s %6s pages/s  (%s fetched in %ss, %s not ok)\n' \
    "llfs direct, $BUDGET in flight" "$dps" "$(jq .fetched <<<"$direct")" \
    "$(jq .seconds <<<"$direct")" "$(jq '.not_ok + .errors' <<<"$direct")"
  echo "      $(cpu_per_page "$c0" "$(cpu_snap)" "$(jq .fetched <<<"$direct")" | sed 's/ hlfs 0$//')"
  local n
  for n in 1 2; do
    stack_run "$n"
    printf '   %-34s %6s pages/s  (%s pages + %s robots.txt in %ss; submitting took %ss)  x%s of direct\n' \
      "whole stack, $n replica(s)" "$STACK_PPS" "$STACK_DONE" "$STACK_ROBOTS" "$STACK_S" \
      "$STACK_SUBMIT_S" "$(ratio "$STACK_PPS" "$dps")"
    echo "      $STACK_CPU"
    printf '{"bench":"gateway_throughput","replicas":%d,"accepted":%d,"pages":%d,"seconds":%s,' \
      "$n" "$STACK_ACC" "$STACK_DONE" "$STACK_S"
    printf '"pages_per_s":%s,"llfs_direct_per_s":%s,"ratio":%s}\n' "$STACK_PPS" "$dps" \
      "$(ratio "$STACK_PPS" "$dps")"
  done
}

# ---- (b) politeness-bound -------------------------------------------------
part_b() {
  local psites=50 pages=20 delay_ms=500 t0 t1 done=0 i p
  start_testweb --generate "sites=$psites,pages=$((pages + 1)),crawl_delay=0.5" \
    --record-max 100 --log-level warn
  replicas 1 --min-delay-ms 0 --delay-factor 0
  for p in $(seq 1 $pages); do
    for i in $(seq 0 $((psites - 1))); do
      echo "http://127.10.0.$((i + 1)):$TESTWEB_PORT/p/$p.html"
    done
  done | jq -Rcn '{urls: [inputs]}' >"$T_DIR/polite.json"
  t0=$(now_ms)
  submit "${REPLICAS[0]}" "$T_DIR/polite.json" >/dev/null
  while [ "$done" -lt $((psites * pages)) ] && [ $(( $(now_ms) - t0 )) -lt 60000 ]; do
    sleep 0.05
    done=$(stat_sum .state.completed "${REPLICAS[0]}")
  done
  t1=$(now_ms)
  local span min gap max_if
  # From the sites' side: first robots.txt arrival to the last page served.
  span=$(curl -s "$TESTWEB_CTL/sites" | jq '((map(.last_done_us) | max) - (map(.first_arrive_us) | min)) / 1000 | floor')
  gap=$(curl -s "$TESTWEB_CTL/sites" | jq 'map(.min_gap_ms) | min | floor')
  max_if=$(curl -s "$TESTWEB_CTL/sites" | jq 'map(.max_in_flight) | max')
  min=$((pages * delay_ms))
  echo "(b) politeness-bound: $psites sites x $pages pages, Crawl-delay 0.5 s (robots.txt first)"
  printf '   %-34s %6s ms  (minimum %d ms: x%s; target <= x1.10)\n' "sites' span (first to last byte)" \
    "$span" "$min" "$(ratio "$span" "$min")"
  printf '   %-34s %6s ms  (x%s)\n' "submit to last result" "$((t1 - t0))" "$(ratio $((t1 - t0)) "$min")"
  printf '   %-34s %6s ms, max in flight per site %s\n' "shortest gap at any site" "$gap" "$max_if"
  printf '{"bench":"gateway_polite","pages":%d,"span_ms":%d,"submit_to_done_ms":%d,"min_ms":%d,"ratio":%s}\n' \
    "$done" "$span" "$((t1 - t0))" "$min" "$(ratio "$span" "$min")"
  [ "$(awk -v s="$span" -v m="$min" 'BEGIN { print (s <= m * 1.1) }')" = 1 ] \
    || { echo "   politeness-bound run NOT within 10 % of its minimum"; rc=1; }
  kill -TERM "$TESTWEB_PID"
}

# ---- (c) memory ------------------------------------------------------------
part_c() {
  local total=1000000 k acc=0 mem0 mem1 rss0 rss1 rss5k rss100k t0 per pid
  replicas 1 --min-delay-ms 3600000 --delay-factor 0
  pid=$HLFS_PID
  sleep 1
  mem0=$(rcli INFO memory | tr -d '\r' | sed -n 's/^used_memory://p')
  rss0=$(rss_kb "$pid")
  t0=$(now_ms)
  for k in $(seq 0 $((total / BATCH - 1))); do
    batch "$k" 1 "$TW_PORT" >"$T_DIR/batch.json"
    acc=$((acc + $(submit "${REPLICAS[0]}" "$T_DIR/batch.json")))
    [ "$k" = 0 ] && rss5k=$(rss_kb "$pid")
    [ "$k" = 19 ] && rss100k=$(rss_kb "$pid")
  done
  local secs=$(( $(now_ms) - t0 ))
  sleep 1
  mem1=$(rcli INFO memory | tr -d '\r' | sed -n 's/^used_memory://p')
  rss1=$(rss_kb "$pid")
  per=$(awk -v a="$mem0" -v b="$mem1" -v n="$acc" 'BEGIN { printf "%.1f", (b - a) / n }')
  local queued fetched
  queued=$(curl -s -H "Authorization: Bearer $TOKEN" "${REPLICAS[0]}/v1/sites/127.10.0.1" | jq .queued)
  fetched=$(stat_sum .scheduler.fetches "${REPLICAS[0]}")
  echo "(c) memory: $acc URLs queued on $SITES sites (submitted in $((secs / 1000)) s," \
    "$((acc * 1000 / (secs ? secs : 1))) URLs/s; pages fetched meanwhile: $fetched; site 0 queue: $queued)"
  printf '   %-34s %6s bytes  (%s MB for the queue; target <= 150)\n' "Redis per queued URL" "$per" \
    "$(( (mem1 - mem0) / 1048576 ))"
  printf '   %-34s %s / %s / %s / %s KB  (0 / 5,000 / 100,000 / %s queued; 1M vs 100k: x%s)\n' \
    "gateway RSS" "$rss0" "$rss5k" "$rss100k" "$rss1" "$acc" "$(ratio "$rss1" "$rss100k")"
  printf '{"bench":"gateway_memory","queued":%d,"redis_bytes_per_url":%s,"rss_kb_0":%d,' \
    "$acc" "$per" "$rss0"
  printf '"rss_kb_5000":%d,"rss_kb_100000":%d,"rss_kb_queued":%d}\n' "$rss5k" "$rss100k" "$rss1"
  [ "$(awk -v p="$per" 'BEGIN { print (p <= 150) }')" = 1 ] \
    || { echo "   Redis per queued URL over 150 bytes"; rc=1; }
}

for part in $PARTS; do
  "part_$part"
done
stop_replicas
exit $rc
