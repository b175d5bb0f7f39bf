#!/bin/bash
# The refresh crawler's freshness against the model's promise, in the same
# run: testweb's changing web (REFRESH_PAGES pages, change intervals
# log-uniform from 5 s to 30 min, a tenth never changing) kept fresh by
# wpfs-refresh through the whole stack at REFRESH_RATE fetches/s (about
# one visit per page every 45 s), once with each policy (optimal, uniform,
# proportional), each for REFRESH_BENCH_S seconds on a new world of the
# same seed with an empty gateway. testweb measures the time-averaged
# freshness at the server over the last two thirds of the run (the first
# third holds the first visits); bench_refresh_model computes the analytic
# freshness of the optimal and uniform allocations with the true rates at
# the rate the crawler actually kept.
# Target: optimal measured >= 95 % of the analytic optimum, and above the
# uniform policy's measured value.
# Knobs: REFRESH_PAGES (300), REFRESH_RATE (6.5), REFRESH_BENCH_S (600),
# REFRESH_SEED (11).
. "$WPFS_ROOT/tests/lib.sh"
PAGES=${REFRESH_PAGES:-300}
RATE=${REFRESH_RATE:-6.5}
DUR=${REFRESH_BENCH_S:-600}
SEED=${REFRESH_SEED:-11}
SITES=30
TOKEN=bench-refresh-token
start_testweb --generate "sites=$SITES,pages=2" --log-level warn
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
WORLD="pages=$PAGES&seed=$SEED&static=0.1&gone=0&min_s=5&max_s=1800"
WARM=$((DUR / 3))

# Per-page fresh seconds of the live pages, "j fresh_s", sorted.
snapshot() { curl -s "$TESTWEB_CTL/churn/fresh" | jq -r '.pages[] | select(.gone_s == 0) | "\(.j) \(.fresh_s)"'; }

one() {  # one POLICY: prints "policy measured achieved_rate"
  local pol=$1 pid
  [ -n "${HLFS_PID:-}" ] && { kill "$HLFS_PID"; wait "$HLFS_PID" 2>/dev/null; }
  redis-cli -p "$REDIS_PORT" flushall >/dev/null
  start_hlfs "$pol" --token "$TOKEN" --min-delay-ms 100 --delay-factor 0 --log-level warn
  curl -sf -X POST "$TESTWEB_CTL/churn?$WORLD" >/dev/null || bail "no changing web"
  curl -s "$TESTWEB_CTL/churn/urls" | cut -f1 >"$T_DIR/urls"
  WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-refresh" --gateway "$HLFS_URL" --urls "$T_DIR/urls" \
    --out "$T_DIR/$pol" --rate "$RATE" --policy "$pol" --duration-s "$DUR" --log-level warn \
    >"$T_DIR/$pol.summary" 2>"$T_DIR/$pol.log" &
  pid=$!
  sleep "$WARM"
  snapshot >"$T_DIR/$pol.t1"
  local t1 t2
  t1=$(date +%s.%N)
  wait "$pid"
  t2=$(date +%s.%N)
  snapshot >"$T_DIR/$pol.t2"
  local fresh
  fresh=$(join "$T_DIR/$pol.t1" "$T_DIR/$pol.t2" |
    awk -v dt="$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')" '{ s += ($3 - $2) / dt; n++ } END { printf "%.4f", s / n }')
  echo "$pol $fresh $(tail -1 "$T_DIR/$pol.summary" | jq -r .fetches_per_s)"
}

for pol in optimal uniform proportional; do
  one "$pol" >>"$T_DIR/results"
done
curl -s "$TESTWEB_CTL/churn/urls" >"$T_DIR/truth"
echo "   $PAGES pages, --rate $RATE, $DUR s per policy, measured over the last $((DUR - WARM)) s"
printf "   %-13s %9s %9s %11s %11s %9s\n" policy measured fetches/s "optimal(an)" "uniform(an)" "meas/opt"
while read -r pol fresh achieved; do
  model=$("$WPFS_BIN/bench/bench_refresh_model" "$achieved" <"$T_DIR/truth")
  opt=$(jq -r .optimal <<<"$model")
  uni=$(jq -r .uniform <<<"$model")
  printf "   %-13s %9s %9s %11s %11s %9s\n" "$pol" "$fresh" "$achieved" "$opt" "$uni" \
    "$(awk -v a="$fresh" -v b="$opt" 'BEGIN { printf "%.3f", a / b }')"
done <"$T_DIR/results"
opt_m=$(awk '$1 == "optimal" { print $2 }' "$T_DIR/results")
uni_m=$(awk '$1 == "uniform" { print $2 }' "$T_DIR/results")
echo "   optimal measured / uniform measured: $(awk -v a="$opt_m" -v b="$uni_m" 'BEGIN { printf "%.3f", a / b }') (target > 1)"
