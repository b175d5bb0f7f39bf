#!/bin/bash
# LLFS fetch throughput against testweb, next to a plain libcurl multi
# program (bench_curl_direct) fetching the same pages in the same run.
#   baseline: bench_curl_direct --file URLS --parallel P --seconds S
#   llfs:     wrk -c P (one thread), each request POST /internal/v1/fetch of
#             the next URL with Accept: application/x-wpfs-fetch
# Prints pages/s of both, the ratio llfs/direct (target: >= 0.5), the
# threads of each side (the direct program has one; llfs has its workers,
# one per CPU unless BENCH_LLFS_WORKERS says otherwise, and the accepting
# main thread), the CPU time per page of each process (llfs, the direct
# program, wrk, testweb), and checks from llfs's own counters that every
# answer was a fetched page; the last line is a JSON summary of medians.
# Figures are recorded in docs/benchmarks.md. Knobs:
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
start_llfs --log-level warn ${BENCH_LLFS_WORKERS:+--workers "$BENCH_LLFS_WORKERS"}
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
WORKERS=$(metric llfs_workers)
echo "   $(wc -l <"$urls") URLs: $SITES sites x $PAGES pages (~1 KiB), $PAR in parallel," \
  "${SECS}s per run, $(nproc) cores shared by testweb, llfs and the load generator;" \
  "threads: direct 1, llfs $WORKERS workers (+ the accepting thread), wrk 1, testweb 1"
# CPU seconds (user + system) of a command, from bash's time keyword.
TIMEFORMAT='%U %S'
timed() { { time "$@" >"$T_DIR/timed.out"; } 2>&1 | awk '{ printf "%.3f", $1 + $2 }'; }

# Sets DPS (pages/s) and DUS / DTW (CPU per page of the program and of
# testweb, us).
run_direct() {
  local tw0 cpu n
  tw0=$(cpu_s "$TESTWEB_PID")
  cpu=$(timed "$WPFS_BIN/bench/bench_curl_direct" --file "$urls" --parallel "$PAR" \
    --seconds "$SECS") || bail "bench_curl_direct failed: $(cat "$T_DIR/timed.out")"
  DPS=$(jq -r .pages_per_s "$T_DIR/timed.out")
  n=$(jq -r .fetched "$T_DIR/timed.out")
  DUS=$(echo "$cpu $n" | awk '{ printf "%.1f", $2 ? $1 * 1e6 / $2 : 0 }')
  DTW=$(echo "$(cpu_s "$TESTWEB_PID") $tw0 $n" | awk '{ printf "%.1f", $3 ? ($1 - $2) * 1e6 / $3 : 0 }')
}

all_fetches() {
  curl -s "$LLFS_URL/metrics" | awk '/^llfs_fetches_total/ { s += $2 } END { print s + 0 }'
}

# Sets LPS (pages/s), CPU (llfs CPU seconds), OKN / OTHER (fetches by
# outcome from llfs's counters), NON2XX and LAT from wrk, WUS / LTW (CPU
# per page of wrk and of testweb, us).
run_llfs() {
  local ok0 all0 cpu0 tw0 wcpu
  ok0=$(metric 'llfs_fetches_total{outcome="ok"}')
  all0=$(all_fetches)
  cpu0=$(cpu_s "$LLFS_PID")
  tw0=$(cpu_s "$TESTWEB_PID")
  wcpu=$(timed wrk -t1 -c"$PAR" -d"${SECS}s" --timeout 10s \
    -s "$WPFS_ROOT/tests/bench/bench_llfs.lua" "$LLFS_URL" -- "$urls") ||
    bail "wrk failed: $(cat "$T_DIR/timed.out")"
  cp "$T_DIR/timed.out" "$T_DIR/wrk.out"
  CPU=$(echo "$(cpu_s "$LLFS_PID") $cpu0" | awk '{ printf "%.2f", $1 - $2 }')
  LPS=$(awk '/^Requests\/sec:/ { print $2 }' "$T_DIR/wrk.out")
  NON2XX=$(awk '/Non-2xx/ { print $5 }' "$T_DIR/wrk.out")
  LAT=$(awk '/^    Latency/ { print $2 }' "$T_DIR/wrk.out")
  OKN=$(( $(metric 'llfs_fetches_total{outcome="ok"}') - ok0 ))
  OTHER=$(( $(all_fetches) - all0 - OKN ))
  WUS=$(echo "$wcpu $OKN" | awk '{ printf "%.1f", $2 ? $1 * 1e6 / $2 : 0 }')
  LTW=$(echo "$(cpu_s "$TESTWEB_PID") $tw0 $OKN" |
    awk '{ printf "%.1f", $3 ? ($1 - $2) * 1e6 / $3 : 0 }')
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
  echo "      CPU per page: direct program $DUS us + testweb $DTW us;" \
    "llfs $us us + wrk $WUS us + testweb $LTW us"
  echo "$DPS $LPS $ratio $us $OTHER ${NON2XX:-0} $DUS $DTW $WUS $LTW" >>"$T_DIR/rounds"
done
col() { awk -v c="$1" '{ print $c }' "$T_DIR/rounds" | median; }
bad=$(awk '{ s += $5 + $6 } END { print s + 0 }' "$T_DIR/rounds")
printf '{"bench":"llfs","rounds":%d,"seconds":%d,"parallel":%d,"direct_pages_per_s":%s,' \
  "$ROUNDS" "$SECS" "$PAR" "$(col 1)"
printf '"llfs_pages_per_s":%s,"ratio":%s,"llfs_workers":%s,"llfs_cpu_us_per_fetch":%s,' \
  "$(col 2)" "$(col 3)" "$WORKERS" "$(col 4)"
printf '"direct_cpu_us_per_page":%s,"wrk_cpu_us_per_page":%s,' "$(col 7)" "$(col 9)"
printf '"testweb_cpu_us_per_page_direct":%s,"testweb_cpu_us_per_page_llfs":%s,' "$(col 8)" "$(col 10)"
printf '"failed_fetches":%d}\n' "$bad"
[ "$bad" -eq 0 ] || bail "$bad fetches were not ok: the figures are not pages"
