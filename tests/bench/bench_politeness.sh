#!/bin/bash
# Politeness precision, as the sites see it (testweb's record of every
# request: when its head arrived, when its last byte left). 10 sites with
# Crawl-delay: 0.2 and a 20 ms hold on every answer, 20 pages each, all
# URLs submitted at once to one gateway (min_delay 0, delay_factor 0: the
# Crawl-delay alone sets the pace). A delay counts from the end of the
# previous answer (docs/benchmarks.md, "Politeness precision"), so for
# each pair of requests to a site the slack is
#   next arrival - (previous answer's end + Crawl-delay),
# the time the site waited on the gateway beyond what politeness asks.
# Prints its median, p99 and max, and the crawl's time against its
# minimum: per site, n answers of (hold + transfer) and n - 1 delays, the
# slowest site setting the pace. Knobs: BENCH_POL_SITES (10),
# BENCH_POL_PAGES (20).
. "$WPFS_ROOT/tests/lib.sh"
SITES=${BENCH_POL_SITES:-10}
PAGES=${BENCH_POL_PAGES:-20}
DELAY_MS=200
HOLD_MS=20
start_testweb --generate "sites=$SITES,pages=$((PAGES + 5)),crawl_delay=0.2,hold_ms=$HOLD_MS" \
  --log-level warn
start_redis
start_llfs --log-level warn
start_hlfs a --token bench-pol --log-level warn --min-delay-ms 0 --delay-factor 0 --poll-ms 500
for i in $(seq 1 "$SITES"); do
  for k in $(seq 1 "$PAGES"); do tw_url "127.10.0.$i" "/p/$k.html"; done
done >"$T_DIR/urls"
t0=$(date +%s%3N)
WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=bench-pol "$WPFS_BIN/wpfs" submit "$T_DIR/urls" >/dev/null 2>&1
done_all() {
  [ "$(curl -s -H 'Authorization: Bearer bench-pol' "$HLFS_URL/v1/stats" | jq .state.completed)" \
    -ge $((SITES * PAGES)) ]
}
# Waited for gently: the machine's cores are the sites' and the gateway's.
# Asked every 50 ms, as wait_for does, the curl and jq processes of this
# loop made most of the p99 (the sites move in step, so one busy moment
# delays all ten): 7-12 ms, against 3-4 ms when asked every 0.5 s. The
# first look comes half a second after the crawl's minimum: right at the
# minimum, it fell on the last round, whose slack then led the p99.
sleep "$(awk -v n="$PAGES" -v d="$DELAY_MS" -v h="$HOLD_MS" 'BEGIN { print n * (d + h) / 1000 + 0.5 }')"
wait_gently() {
  local i
  for i in $(seq 1 600); do
    done_all && return 0
    sleep 0.2
  done
  return 1
}
wait_gently || { echo "   not every page fetched in 120 s"; exit 1; }
t1=$(date +%s%3N)
for i in $(seq 1 "$SITES"); do
  tw_site_json "127.10.0.$i" "requests=1000" | jq -c '.requests | sort_by(.arrive_us)'
done >"$T_DIR/records"
jq -rs --argjson d "$DELAY_MS" '
  def pct(p): sort | .[((length - 1) * p | floor)];
  [ .[] | [range(1; length) as $k | ((.[$k].arrive_us - .[$k - 1].done_us) / 1000 - $d)] ] | add
  | "\(length) \(pct(0.5)) \(pct(0.99)) \(max) \(min)"' "$T_DIR/records" >"$T_DIR/slack"
read -r pairs med p99 max min <"$T_DIR/slack"
# Rounds: the k-th pair of every site. The sites move in step, so a round
# late as a whole points at a moment (the machine, a shared process), and
# a spread within rounds at the order in which one moment's sites are
# served.
jq -rs --argjson d "$DELAY_MS" '
  def med: sort | .[((length - 1) / 2 | floor)];
  [ .[] | [range(1; length) as $k | { k: $k, s: ((.[$k].arrive_us - .[$k - 1].done_us) / 1000 - $d) }] ]
  | add | group_by(.k) | map([.[].s]) | map({ m: med, w: (max - min) })
  | "\(length) \(map(.m) | max) \(map(select(.m > 2)) | length) \(map(.w) | med) \(.[0].m) \(.[-1].m)"' \
  "$T_DIR/records" >"$T_DIR/rounds"
# the first round is robots.txt then the first page (a completion of its
# own kind), the last is when the benchmark starts looking for the end
read -r nrounds worst_round late_rounds spread first_round last_round <"$T_DIR/rounds"
# the minimum: per site, its answers' own durations plus n - 1 delays
jq -rs --argjson d "$DELAY_MS" '
  [ .[] | { min: ((map(.duration_ms) | add) + (length - 1) * $d),
            took: ((.[-1].done_us - .[0].arrive_us) / 1000) } ]
  | "\(map(.min) | max) \(map(.took) | max)"' "$T_DIR/records" >"$T_DIR/span"
read -r ideal took <"$T_DIR/span"
printf '   %d sites x %d pages (+ robots.txt), Crawl-delay %d ms, answers held %d ms, %s cores\n' \
  "$SITES" "$PAGES" "$DELAY_MS" "$HOLD_MS" "$(nproc)"
printf '   slack after the delay, over %d request pairs: median %.2f ms, p99 %.2f ms, max %.2f ms (min %.2f)\n' \
  "$pairs" "$med" "$p99" "$max" "$min"
printf '   rounds (the k-th request of every site): %d, the latest one'"'"'s median %.2f ms, %d with a median over 2 ms; spread within a round: median %.2f ms\n' \
  "$nrounds" "$worst_round" "$late_rounds" "$spread"
printf '   the first round'"'"'s median (robots.txt, then the first page) %.2f ms, the last one'"'"'s %.2f ms\n' \
  "$first_round" "$last_round"
printf '   slowest site: %.0f ms from its first request to its last answer; its minimum %.0f ms: x%.3f\n' \
  "$took" "$ideal" "$(awk -v a="$took" -v b="$ideal" 'BEGIN { print a / b }')"
printf '   whole crawl from submission to the look that found it done: %d ms\n' $((t1 - t0))
printf '{"bench":"politeness","pairs":%d,"slack_ms":{"median":%s,"p99":%s,"max":%s},"site_ms":%s,"site_min_ms":%s}\n' \
  "$pairs" "$med" "$p99" "$max" "$took" "$ideal"
awk -v m="$min" 'BEGIN { exit !(m >= -1) }' || { echo "   a request came before its delay"; exit 1; }
