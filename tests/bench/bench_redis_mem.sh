#!/bin/bash
# The gateway's Redis cost on this machine, one fresh redis-server:
#  - bytes of Redis per queued URL (INFO memory) for 100,000 URLs on 1,000
#    sites, for three URL shapes, for the long shape again with
#    zset-max-listpack-value raised to 256, and for 1,000 URLs per site
#    queue with and without zset-max-listpack-entries raised to 1024
#    (docs/hlfs-state.md explains); baseline: the URLs' own length;
#  - claims + completions per second through the real scheduler with an
#    instant fake fetch, scripted calls per fetch and Redis CPU per fetch;
#    baseline: a no-op script on the same connection.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
B="$WPFS_BIN/bench/bench_redis_mem"
export REDIS_PORT

val() { sed -n "s/^$1 //p" "$2"; }

PER=0
mem() {  # shape label: prints a line, leaves bytes per URL in PER
  local out=$T_DIR/mem.$1 url enc
  "$B" mem "$1" >"$out" || { echo "   bench_redis_mem mem $1 failed"; exit 1; }
  PER=$(val redis_bytes_per_url "$out"); url=$(val url_bytes_avg "$out")
  enc=$(val queue_encoding "$out")
  printf '   %-30s %6.1f bytes/URL  (URL itself %5.1f bytes: x%.2f; site queue %s; %s URLs/s)\n' \
    "$2" "$PER" "$url" "$(echo "$PER / $url" | bc -l)" "$enc" "$(val submit_urls_per_s "$out")"
}

echo "Redis memory per queued URL (100,000 URLs, 1,000 sites, one client):"
mem short "short URLs"
mem web "web-like URLs"
web=$PER
mem long "long URLs"
redis-cli -p "$REDIS_PORT" CONFIG SET zset-max-listpack-value 256 >/dev/null
mem long "long, listpack values <= 256"
redis-cli -p "$REDIS_PORT" CONFIG SET zset-max-listpack-value 64 >/dev/null
echo "The same 100,000 web-like URLs on 100 sites (1,000 per site queue):"
BENCH_SITES=100 mem web "default listpack limits"
redis-cli -p "$REDIS_PORT" CONFIG SET zset-max-listpack-entries 1024 >/dev/null
BENCH_SITES=100 mem web "listpack entries <= 1024"
redis-cli -p "$REDIS_PORT" CONFIG SET zset-max-listpack-entries 128 >/dev/null
if [ "$(echo "$web <= 150" | bc)" = 1 ]; then
  echo "   target <= 150 bytes per web-like URL: met"
else
  echo "   target <= 150 bytes per web-like URL: NOT met"; rc=1
fi

out=$T_DIR/tput
"$B" tput >"$out" || { echo "   bench_redis_mem tput failed"; exit 1; }
fps=$(val fetches_per_s "$out"); noop=$(val noop_evals_per_s "$out")
cpu=$(val redis_cpu_us_per_fetch "$out"); ncpu=$(val redis_cpu_us_per_noop "$out")
echo "Scheduler against one redis-server (instant fake fetch, budget 256):"
printf '   %-30s %6.0f /s  (no-op script, 64 deep: %.0f /s)\n' "claims+completions" "$fps" "$noop"
printf '   %-30s %6.3f\n' "scripted calls per fetch" "$(val evals_per_fetch "$out")"
printf '   %-30s %6.1f us  (= %.0f no-op script calls at %.2f us)\n' "Redis CPU per fetch" \
  "$cpu" "$(echo "$cpu / $ncpu" | bc -l)" "$ncpu"
printf '   %-30s %6.0f /s per Redis core\n' "fetch ceiling from CPU" "$(echo "1000000 / $cpu" | bc -l)"
exit ${rc:-0}
