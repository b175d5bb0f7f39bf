#!/bin/bash
# The refresh crawler's steady-state freshness on several changing webs,
# against what the uniform, proportional and optimal policies get with the
# same number of fetches and the true rates (bench_refresh_model).
#
# Each web runs on its own stack (testweb, dnsmasq, redis, llfs, hlfs,
# wpfs-refresh), all at once: they are light (a few fetches/s each).
#   mixed-1..3  200 pages on 10 sites, mean change intervals log-uniform
#               3 s .. 30 min, a tenth never changing, 5 fetches/s, 900 s,
#               measured over the last 450 s (seeds 1, 2, 3);
#   cluster-4, cluster-5  the same with each site's pages in a band of
#               15 % of that log range (rates clustered by site), seeds 4
#               and 5;
#   legacy-600  300 pages on 30 sites, 5 s .. 30 min, 6.5 fetches/s,
#               600 s, measured over the last 400 s (seed 11);
#   legacy-600h the same web (the same changes after the start) with a
#               past: each page's first Last-Modified as old as its
#               process would have left it (testweb history=1), where on
#               the other webs every page is new at the start.
# testweb measures the time-averaged binary freshness at the server over
# the window; the analytic figures are for the fetches testweb saw in it.
# The realized figures (r-unif, r-prop, r-opt) are what the uniform,
# proportional and optimal allocations (true rates, the same fetches)
# would have measured on the change times that happened in the window
# (testweb's /churn/changes), each page visited at even intervals from a
# uniform phase, averaged over the phase exactly (refresh_realized.h):
# the crawler's measured freshness and these share the luck of where the
# changes fell (common random numbers), the analytic ones are its
# expectation. The share of the gap closed is given against both, and
# the target checked against both.
# For each web the loss against the optimum is split from the change log
# (docs/refresh.md): estimation (the optimal allocation for the rates the
# crawler estimated, judged with the true ones), allocation (the visit
# rates it planned), rate (the visit rates it achieved, evenly spaced) and
# spacing (what testweb measured); and the freshness the visit times
# promise (e^(-lambda (s - v)) at time s after a visit at v, averaged over
# the window and the pages), which leaves out when the changes happened
# to fall: the noise of one run.
# Targets: every web closes at least half of the gap between uniform and
# optimal and never falls below uniform; fetches/s within 5 % of --rate.
# Shares are summed up per family (mixed-*, cluster-*, legacy-*,
# legacy-*h): mean and 95 % interval (t) over its webs.
# Knobs: REFRESH_WEBS (all seven, space-separated names), REFRESH_POLICY
# (optimal), REFRESH_BIN (wpfs-refresh to measure), REFRESH_SCALE (1:
# durations multiplied by it, for a quick look). `bench_refresh.sh report
# DIR` prints the figures of an earlier run's directory again.
set -u
: "${WPFS_BIN:?run through make bench}" "${WPFS_ROOT:?run through make bench}"

# name pages sites seed min_s max_s cluster rate seconds measured_s history
WEBS="mixed-1 200 10 1 3 1800 0 5 900 450 0
mixed-2 200 10 2 3 1800 0 5 900 450 0
mixed-3 200 10 3 3 1800 0 5 900 450 0
cluster-4 200 10 4 3 1800 0.15 5 900 450 0
cluster-5 200 10 5 3 1800 0.15 5 900 450 0
legacy-600 300 30 11 5 1800 0 6.5 600 400 0
legacy-600h 300 30 11 5 1800 0 6.5 600 400 1"

if [ "${1:-}" = one ]; then
  shift
  . "$WPFS_ROOT/tests/lib.sh"
  read -r NAME PAGES SITES SEED MIN MAX CLUSTER RATE DUR WIN HIST OUT <<<"$*"
  POL=${REFRESH_POLICY:-optimal}
  BIN=${REFRESH_BIN:-$WPFS_BIN/wpfs-refresh}
  TOKEN=bench-refresh-token
  start_testweb --generate "sites=$SITES,pages=2" --log-level warn
  start_dnsmasq "$SITES"
  start_redis
  start_llfs --log-level warn
  start_hlfs bench --token "$TOKEN" --min-delay-ms 100 --delay-factor 0 --log-level warn
  curl -sf -X POST "$TESTWEB_CTL/churn?pages=$PAGES&seed=$SEED&static=0.1&gone=0&min_s=$MIN&max_s=$MAX&cluster=$CLUSTER&history=$HIST" \
    >/dev/null || bail "no changing web"
  curl -s "$TESTWEB_CTL/churn/urls" >"$OUT/truth"
  cut -f1 "$OUT/truth" >"$T_DIR/urls"
  WPFS_TOKEN=$TOKEN "$BIN" --gateway "$HLFS_URL" --urls "$T_DIR/urls" --out "$OUT/crawl" \
    --rate "$RATE" --policy "$POL" --duration-s "$DUR" --log-level warn --compact-factor 0 \
    >"$OUT/summary" 2>"$OUT/stderr" &
  pid=$!
  T_PIDS+=("$pid")
  sleep $((DUR - WIN))
  t1=$(date +%s%3N)
  curl -s "$TESTWEB_CTL/churn/fresh" >"$OUT/fresh1"
  wait "$pid"
  t2=$(date +%s%3N)
  curl -s "$TESTWEB_CTL/churn/fresh" >"$OUT/fresh2"
  curl -sf "$TESTWEB_CTL/churn/changes" >"$OUT/changes" || rm -f "$OUT/changes"
  echo "$t1 $t2" >"$OUT/window"
  exit 0
fi

# The per-page table of one web (docs/refresh.md, "Where the freshness
# goes"): j true_mean_s estimated_rate planned_f achieved_f measured p_static.
page_table() {
  local d=$1 t1 t2
  read -r t1 t2 <"$d/window"
  jq -r '.pages[] | "\(.j) \(.fresh_s) \(.fetches)"' "$d/fresh1" | sort -k1,1 >"$d/f1"
  jq -r '.pages[] | "\(.j) \(.fresh_s) \(.fetches)"' "$d/fresh2" | sort -k1,1 >"$d/f2"
  jq -r 'select(.time_ms != null and .rate != null) | "\(.url) \(.time_ms) \(.rate) \(.visits_per_s) \(.static // 0)"' \
    "$d/crawl/changes.jsonl" | sed 's|.*/_b/churn/||' >"$d/visits"
  awk '{ print NR - 1, $2 }' "$d/truth" | sort -k1,1 >"$d/true"
  join "$d/f1" "$d/f2" | join "$d/true" - | awk -v t1="$t1" -v t2="$t2" -v vf="$d/visits" '
    BEGIN {
      while((getline l < vf) > 0) {
        split(l, a, " ")
        if(a[2] <= t2) { est[a[1]] = a[3]; last_f[a[1]] = a[4]; stat[a[1]] = a[5] }
        if(a[2] > t1 && a[2] <= t2) { fs[a[1]] += a[4]; fn[a[1]]++ }
      }
      dt = (t2 - t1) / 1000
    }
    { j = $1; pf = fn[j] ? fs[j] / fn[j] : last_f[j]
      printf "%s %s %s %s %.6g %.6g %s\n", j, $2, (j in est) ? est[j] : 0, pf, ($6 - $4) / dt, ($5 - $3) / dt, (j in stat) ? stat[j] : 0 }'
}

# The freshness expected from the visit times alone (docs/refresh.md):
# after a visit at v a page of rate lambda is fresh at s with chance
# e^(-lambda (s - v)); integrated over the window, averaged over pages.
# It leaves out when the changes happened to fall, the noise of one run.
expected_fresh() {
  local d=$1 t1 t2
  read -r t1 t2 <"$d/window"
  sort -k1,1n -k2,2n "$d/visits" | awk -v t1="$t1" -v t2="$t2" -v tf="$d/true" '
    BEGIN { while((getline l < tf) > 0) { split(l, a, " "); m[a[1]] = a[2]; n++ } }
    function close_page(   a, b, l) {
      if(j == "" || v == "") return
      a = v > t1 ? v : t1; b = t2
      if(b <= a) return
      l = m[j] > 0 ? 1 / (m[j] * 1000) : 0
      sum += l > 0 ? (exp(-l * (a - v)) - exp(-l * (b - v))) / l : b - a
    }
    function span(to,   a, b, l) {
      a = v > t1 ? v : t1; b = to < t2 ? to : t2
      if(b <= a) return
      l = m[j] > 0 ? 1 / (m[j] * 1000) : 0
      sum += l > 0 ? (exp(-l * (a - v)) - exp(-l * (b - v))) / l : b - a
    }
    $1 != j { close_page(); j = $1; v = "" }
    { if(v != "" && $2 > v) span($2); if($2 <= t2) v = $2 }
    END { close_page(); printf "%.4f\n", sum / (t2 - t1) / n }'
}

webs=${REFRESH_WEBS:-$(cut -d' ' -f1 <<<"$WEBS" | tr '\n' ' ')}
scale=${REFRESH_SCALE:-1}
if [ "${1:-}" = report ]; then  # the figures of an earlier run's directory again
  dir=${2:?report DIR}
  webs=${REFRESH_WEBS:-$(cd "$dir" && ls -d -- */ | tr -d / | tr '\n' ' ')}
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-bench-refresh.XXXXXX")
  pids=()
  for w in $webs; do
    line=$(grep "^$w " <<<"$WEBS") || { echo "   no web $w"; exit 1; }
    read -r name pages sites seed min max cluster rate dur win hist <<<"$line"
    dur=$(awk -v a="$dur" -v s="$scale" 'BEGIN { printf "%d", a * s }')
    win=$(awk -v a="$win" -v s="$scale" 'BEGIN { printf "%d", a * s }')
    mkdir -p "$dir/$name"
    bash "$0" one "$name $pages $sites $seed $min $max $cluster $rate $dur $win $hist $dir/$name" \
      >"$dir/$name/harness.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
fi

echo "   measured over each run's last half (legacy-600: last two thirds); analytic figures for the fetches testweb saw;"
echo "   expected: the freshness the visit times promise (without the noise of when changes fell), and its share of the gap"
printf "   %-11s %7s %6s %8s %8s %8s %8s %6s %8s %6s | %6s %6s %6s %6s\n" web fetch/s budget measured uniform proport optimal closed \
  expected closed estim alloc rate spacing
closed_all=()
closed_exp=()
closed_real=()
realized_rows=()
rc=0
for w in $webs; do
  d=$dir/$w
  rate=$(grep "^$w " <<<"$WEBS" | cut -d' ' -f8)
  if [ ! -s "$d/window" ] || [ ! -s "$d/crawl/changes.jsonl" ]; then
    echo "   $w: no result"; tail -5 "$d/harness.log" | sed 's/^/     /'; rc=1; continue
  fi
  page_table "$d" >"$d/table"
  changes=()
  [ -s "$d/changes" ] && changes=("$d/changes" "$(jq -r .elapsed_s "$d/fresh1")" "$(jq -r .elapsed_s "$d/fresh2")")
  s=$("$WPFS_BIN/bench/bench_refresh_model" --split "${changes[@]}" <"$d/table")
  f() { jq -r ".$1 // \"nan\"" <<<"$s"; }
  closed=$(awk -v m="$(f measured)" -v u="$(f uniform)" -v o="$(f optimal)" 'BEGIN { printf "%.2f", (m - u) / (o - u) }')
  expect=$(expected_fresh "$d")
  cexp=$(awk -v m="$expect" -v u="$(f uniform)" -v o="$(f optimal)" 'BEGIN { printf "%.2f", (m - u) / (o - u) }')
  hist=$(grep "^$w " <<<"$WEBS" | cut -d' ' -f11)
  closed_all+=("$w $closed $hist")
  closed_exp+=("$w $cexp $hist")
  printf "   %-11s %7.3f %6s %8.4f %8.4f %8.4f %8.4f %6s %8.4f %6s | %6.4f %6.4f %6.4f %6.4f\n" "$w" "$(f fetches_per_s)" "$rate" \
    "$(f measured)" "$(f uniform)" "$(f proportional)" "$(f optimal)" "$closed" "$expect" "$cexp" \
    "$(f loss_estimation)" "$(f loss_allocation)" "$(f loss_rate)" "$(f loss_spacing)"
  # The target against either pair of baselines: half the gap closed,
  # never below uniform, fetches/s within 5 % of the budget.
  target() { awk -v m="$(f measured)" -v u="$1" -v o="$2" -v r="$(f fetches_per_s)" -v b="$rate" \
    'BEGIN { print (m - u >= (o - u) / 2 && m >= u && r >= 0.95 * b && r <= 1.05 * b) ? "met" : "MISSED" }'; }
  if [ ${#changes[@]} -gt 0 ]; then
    creal=$(awk -v m="$(f measured)" -v u="$(f realized_uniform)" -v o="$(f realized_optimal)" 'BEGIN { printf "%.2f", (m - u) / (o - u) }')
    closed_real+=("$w $creal $hist")
    realized_rows+=("$(printf "   %-11s %8.4f %8.4f %8.4f %8.4f %6s %6s | %8.4f %8.4f %8.4f %6s %6s" "$w" "$(f measured)" \
      "$(f realized_uniform)" "$(f realized_proportional)" "$(f realized_optimal)" "$creal" \
      "$(target "$(f realized_uniform)" "$(f realized_optimal)")" \
      "$(f uniform)" "$(f proportional)" "$(f optimal)" "$closed" "$(target "$(f uniform)" "$(f optimal)")")")
  fi
done
if [ ${#realized_rows[@]} -gt 0 ]; then
  echo "   realized: what uniform, proportional and optimal (true rates, the same fetches, a uniform phase) would"
  echo "   have measured on the change times that happened in the window (common random numbers); analytic beside"
  printf "   %-11s %8s %8s %8s %8s %6s %6s | %8s %8s %8s %6s %6s\n" web measured r-unif r-prop r-opt closed target \
    uniform proport optimal closed target
  printf '%s\n' "${realized_rows[@]}"
fi
# Mean and 95 % interval (t) of the shares in "$@" ("web share history"
# each), labelled $1: over all webs without a history (the six of the
# earlier benchmark), then per family (mixed-*: the webs named so).
share_ci() {
  local what=$1
  shift
  printf '%s\n' "$@" | awk -v what="$what" '
    function t(n) { return n == 2 ? 12.71 : n == 3 ? 4.30 : n == 4 ? 3.18 : n == 5 ? 2.78 : n == 6 ? 2.57 : 2.45 }
    function line(label, s, q, n,   m, sd) {
      m = s / n
      if(n < 2) { printf "   share of the gap closed (%s), %s: %.2f, one web\n", what, label, m; return }
      sd = sqrt((q - n * m * m) / (n - 1)); sd = sd == sd ? sd : 0
      printf "   share of the gap closed (%s), %s: mean %.2f, 95 %% interval %.2f .. %.2f over %d webs\n", what, label, m,
        m - t(n) * sd / sqrt(n), m + t(n) * sd / sqrt(n), n }
    { fam = $1; sub(/-[0-9]+/, "-*", fam)
      if($3 == 0) { s += $2; q += $2 * $2; n++ }
      if(!(fam in fn)) order[++nf] = fam
      fs[fam] += $2; fq[fam] += $2 * $2; fn[fam]++ }
    END { if(n > 1) line("all without a history", s, q, n); for(i = 1; i <= nf; i++) line(order[i], fs[order[i]], fq[order[i]], fn[order[i]]) }'
}
if [ "${#closed_all[@]}" -gt 1 ]; then
  share_ci "measured, analytic baselines" "${closed_all[@]}"
  share_ci "expected, analytic baselines" "${closed_exp[@]}"
  [ ${#closed_real[@]} -gt 0 ] && share_ci "measured, realized baselines" "${closed_real[@]}"
fi
echo "   (per-web files in $dir)"
exit $rc
