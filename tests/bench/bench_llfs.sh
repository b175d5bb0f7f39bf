#!/bin/bash
# LLFS fetch throughput against testweb, next to a plain libcurl multi
# program (bench_curl_direct) fetching the same pages in the same run.
#   baseline: bench_curl_direct --file URLS --parallel P --seconds S
#   llfs:     wrk -c P (one thread), each request POST /internal/v1/fetch of
#             the next URL with Accept: application/x-wpfs-fetch
# Prints pages/s of both, the ratio llfs/direct (target: >= 0.5), the
# CPU time of the llfs process per fetch, and checks from llfs's own
# counters that every answer was a fetched page; the last line is a JSON
# summary of medians. Figures are recorded in docs/benchmarks.md. Knobs:
# BENCH_SITES (300), BENCH_PAGES (20), BENCH_PARALLEL (64),
# BENCH_SECONDS (5 per run), BENCH_ROUNDS (4; each runs both sides).
. "$WPFS_ROOT/tests/lib.sh"
SITES=${BENCH_SITES:-300}
PAGES=${BENCH_PAGES:-20}
PAR=${BENCH_PARALLEL:-64}
SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-4}
command -v wrk >/dev/null || bail "wrk is not installed (make deps)"

start_testweb --generate "sites=$SITES,pages=$PAGES" --log-level warn --record-max 0
start_llfs --log-level warn
metric() {
  curl -s "$LLFS_URL/metrics" | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}
# CPU seconds (user + system) a process has used so far.
cpu_s() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat"
}

# The baseline's own generator: site-major rounds over the pages, so that
# parallel transfers go to different sites.
urls=$T_DIR/urls
for ((j = -1; j < PAGES - 1; j++)); do
  for ((i = 0; i < SITES; i++)); do
    p=/
    [ "$j" -ge 0 ] && p=/p/$((j + 1)).html
    echo "http://127.10.$((i / 250)).$((i % 250 + 1)):$TESTWEB_PORT$p"
  done
done >"$urls"
echo "   $(wc -l <"$urls") URLs: $SITES sites x $PAGES pages (~1 KiB), $PAR in parallel," \
  "${SECS}s per run, $(nproc) cores shared by testweb, llfs and the load generator"

run_direct() {
  local out
  out=$("$WPFS_BIN/bench/bench_curl_direct" --file "$urls" --parallel "$PAR" \
    --seconds "$SECS") || bail "bench_curl_direct failed: $out"
  DPS=$(echo "$out" | jq -r .pages_per_s)
}

all_fetches() {
  curl -s "$LLFS_URL/metrics" | awk '/^llfs_fetches_total/ { s += $2 } END { print s + 0 }'
}

# Sets LPS (pages/s), CPU (llfs CPU seconds), OKN / OTHER (fetches by
# outcome from llfs's counters), NON2XX and LAT from wrk.
run_llfs() {
  local ok0 all0 cpu0
  ok0=$(metric 'llfs_fetches_total{outcome="ok"}')
  all0=$(all_fetches)
  cpu0=$(cpu_s "$LLFS_PID")
  wrk -t1 -c"$PAR" -d"${SECS}s" --timeout 10s -s "$WPFS_ROOT/tests/bench/bench_llfs.lua" \
    "$LLFS_URL" -- "$urls" >"$T_DIR/wrk.out" 2>&1 || bail "wrk failed: $(cat "$T_DIR/wrk.out")"
  CPU=$(echo "$(cpu_s "$LLFS_PID") $cpu0" | awk '{ printf "%.2f", $1 - $2 }')
  LPS=$(awk '/^Requests\/sec:/ { print $2 }' "$T_DIR/wrk.out")
  NON2XX=$(awk '/Non-2xx/ { print $5 }' "$T_DIR/wrk.out")
  LAT=$(awk '/^    Latency/ { print $2 }' "$T_DIR/wrk.out")
  OKN=$(( $(metric 'llfs_fetches_total{outcome="ok"}') - ok0 ))
  OTHER=$(( $(all_fetches) - all0 - OKN ))
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Rounds alternate which side goes first, and each ratio compares two runs
# made back to back, so that load from elsewhere on the machine weighs on
# both sides alike; the summary takes medians.
: >"$T_DIR/rounds"
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then run_direct; run_llfs; else run_llfs; run_direct; fi
  ratio=$(echo "$LPS $DPS" | awk '{ printf "%.3f", $1 / $2 }')
  us=$(echo "$CPU $OKN" | awk '{ printf "%.1f", $2 ? $1 * 1e6 / $2 : 0 }')
  echo "   round $r: direct libcurl $DPS pages/s; llfs $LPS pages/s (mean latency $LAT)," \
    "ratio $ratio; llfs CPU ${CPU}s = $us us/fetch; not ok: $OTHER, non-2xx: ${NON2XX:-0}"
  echo "$DPS $LPS $ratio $us $OTHER ${NON2XX:-0}" >>"$T_DIR/rounds"
done
col() { awk -v c="$1" '{ print $c }' "$T_DIR/rounds" | median; }
bad=$(awk '{ s += $5 + $6 } END { print s + 0 }' "$T_DIR/rounds")
printf '{"bench":"llfs","rounds":%d,"seconds":%d,"parallel":%d,"direct_pages_per_s":%s,' \
  "$ROUNDS" "$SECS" "$PAR" "$(col 1)"
printf '"llfs_pages_per_s":%s,"ratio":%s,"llfs_cpu_us_per_fetch":%s,"failed_fetches":%d}\n' \
  "$(col 2)" "$(col 3)" "$(col 4)" "$bad"
[ "$bad" -eq 0 ] || bail "$bad fetches were not ok: the figures are not pages"
