#!/bin/bash
# The state sharded over 1, 2 and 3 independent Redis (hlfs --redis a,b,c):
# URLs/s claimed and completed by two gateways crawling 40,000 URLs over
# 1,000 sites with no politeness delay, and where the limit is. For each
# run: every process's CPU per URL, and how busy the busiest Redis was
# (its CPU time over the run's wall time; a Redis runs its scripts on one
# core, so 1.0 is its ceiling). "Redis ceiling" is the rate at which the
# busiest Redis would be saturated, all else being free: it grows with the
# shards, while the measured rate stays bound by the machine's cores, which
# every process shares. Pages go to a page-cache Redis of their own, as
# deployed, so the shards hold only the state. Figures: docs/benchmarks.md ("## Shards").
# Knobs: BENCH_SHARD_URLS (40000), BENCH_CAP_S (60).
. "$WPFS_ROOT/tests/lib.sh"
SITES=1000
URLS=${BENCH_SHARD_URLS:-40000}
CAP_S=${BENCH_CAP_S:-60}
BATCH=5000
TOKEN=bench-shards-token
rc=0

start_testweb --generate "sites=$SITES,pages=101" --record-max 0 --log-level warn
TW_PORT=$TESTWEB_PORT TW_PID=$TESTWEB_PID
start_llfs --log-level warn
start_redis_cache 1gb  # pages apart, as deployed: the shards hold only the state
now_ms() { date +%s%3N; }
batch() {  # k: BATCH URLs, site-major
  awk -v k="$1" -v n="$SITES" -v b="$BATCH" -v port="$TW_PORT" 'BEGIN {
    printf "{\"urls\":["
    for(x = k * b; x < (k + 1) * b; x++) {
      s = x % n
      printf "%s\"http://127.10.%d.%d:%d/p/%d.html\"", (x > k * b ? "," : ""),
             int(s / 250), s % 250 + 1, port, 1 + int(x / n)
    }
    printf "]}" }'
}
stat_sum() {  # jq-path: the sum over the gateways
  local u n=0
  for u in "${GWS[@]}"; do
    n=$((n + $(curl -s -H "Authorization: Bearer $TOKEN" "$u/v1/stats" | jq "$1")))
  done
  echo "$n"
}

run() {  # shards
  local n=$1 i p list="" rpids=() gpids=() v
  for p in $(freeport "$n"); do
    bg "redis-$n-$p" redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no \
      --dir "$T_DIR" --logfile "" --protected-mode no
    rpids+=("$BG_PID")
    wait_for 5 redis-cli -p "$p" ping >/dev/null || bail "redis-server $p did not start"
    list="$list${list:+,}127.0.0.1:$p"
  done
  GWS=()
  for i in 1 2; do
    REDIS_PORT=1 start_hlfs "s${n}r$i" --token "$TOKEN" --log-level warn --redis "$list" \
      --cache-redis "127.0.0.1:$CACHE_REDIS_PORT" \
      --min-delay-ms 0 --delay-factor 0 --budget 256
    GWS+=("$HLFS_URL")
    gpids+=("$HLFS_PID")
  done
  local r0=() g0 g1 l0 l1 w0 w1 t0 t1 done=0 k
  for p in "${rpids[@]}"; do r0+=("$(cpu_ms "$p")"); done
  g0=$(cpu_ms "${gpids[@]}") l0=$(cpu_ms "$LLFS_PID") w0=$(cpu_ms "$TW_PID")
  t0=$(now_ms)
  for k in $(seq 0 $((URLS / BATCH - 1))); do
    batch "$k" >"$T_DIR/batch.json"
    curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
      --data-binary @"$T_DIR/batch.json" "${GWS[k % 2]}/v1/batches" >/dev/null
  done
  while [ "$done" -lt "$URLS" ] && [ $(( $(now_ms) - t0 )) -lt $((CAP_S * 1000)) ]; do
    sleep 0.2
    done=$(stat_sum .state.completed)
  done
  t1=$(now_ms)
  local claims wall=$((t1 - t0)) rsum=0 rmax=0 rc_ms
  claims=$(stat_sum .state.claims)
  for i in "${!rpids[@]}"; do
    rc_ms=$(( $(cpu_ms "${rpids[i]}") - r0[i] ))
    rsum=$((rsum + rc_ms))
    [ "$rc_ms" -gt "$rmax" ] && rmax=$rc_ms
  done
  g1=$(cpu_ms "${gpids[@]}") l1=$(cpu_ms "$LLFS_PID") w1=$(cpu_ms "$TW_PID")
  local cps pps busy ceil
  cps=$(awk -v c="$claims" -v t="$wall" 'BEGIN { printf "%.0f", c * 1000 / t }')
  pps=$(awk -v c="$done" -v t="$wall" 'BEGIN { printf "%.0f", c * 1000 / t }')
  busy=$(awk -v c="$rmax" -v t="$wall" 'BEGIN { printf "%.2f", c / t }')
  ceil=$(awk -v p="$pps" -v b="$busy" 'BEGIN { printf "%.0f", (b > 0 ? p / b : 0) }')
  printf '   %d shard(s): %6s claimed/s %6s completed/s  (%s of %s in %.1fs)\n' "$n" "$cps" "$pps" \
    "$done" "$URLS" "$(awk -v t="$wall" 'BEGIN { print t / 1000 }')"
  printf '      CPU us/URL: redis (all shards) %d, hlfs %d, llfs %d, testweb %d\n' \
    $((rsum * 1000 / (done ? done : 1))) $(( (g1 - g0) * 1000 / (done ? done : 1) )) \
    $(( (l1 - l0) * 1000 / (done ? done : 1) )) $(( (w1 - w0) * 1000 / (done ? done : 1) ))
  printf '      busiest Redis %s busy: Redis ceiling %s URLs/s\n' "$busy" "$ceil"
  printf '{"bench":"shards","shards":%d,"urls":%d,"completed":%d,"claims":%d,"ms":%d,' \
    "$n" "$URLS" "$done" "$claims" "$wall"
  printf '"redis_cpu_ms":%d,"busiest_redis_cpu_ms":%d,"hlfs_cpu_ms":%d}\n' "$rsum" "$rmax" $((g1 - g0))
  [ "$done" -ge "$URLS" ] || { echo "   not every URL completed within ${CAP_S}s"; rc=1; }
  SHARD_PPS[n]=$pps SHARD_CEIL[n]=$ceil
  for v in "${gpids[@]}" "${rpids[@]}"; do kill -TERM "$v" 2>/dev/null; wait "$v" 2>/dev/null; done
  redis-cli -p "$CACHE_REDIS_PORT" FLUSHALL >/dev/null
}

declare -a SHARD_PPS SHARD_CEIL
echo "   $URLS URLs over $SITES sites, no delays, two gateways, $(nproc) cores shared by all"
for n in 1 2 3; do run "$n"; done
printf '   completed/s vs 1 shard: 2 shards x%s, 3 shards x%s; Redis ceiling vs 1 shard: x%s, x%s\n' \
  "$(awk -v a="${SHARD_PPS[2]}" -v b="${SHARD_PPS[1]}" 'BEGIN { printf "%.2f", a / b }')" \
  "$(awk -v a="${SHARD_PPS[3]}" -v b="${SHARD_PPS[1]}" 'BEGIN { printf "%.2f", a / b }')" \
  "$(awk -v a="${SHARD_CEIL[2]}" -v b="${SHARD_CEIL[1]}" 'BEGIN { printf "%.2f", a / b }')" \
  "$(awk -v a="${SHARD_CEIL[3]}" -v b="${SHARD_CEIL[1]}" 'BEGIN { printf "%.2f", a / b }')"
exit $rc
