#!/bin/bash
# The discovery crawler against Scrapy (Debian's python3-scrapy), the same
# crawl of the same testweb world in the same run: robots.txt obeyed, one
# request per site at a time, DELAY_MS between two requests to a site
# (Scrapy: CONCURRENT_REQUESTS_PER_DOMAIN=1, DOWNLOAD_DELAY; the gateway:
# --min-delay-ms, --delay-factor 0), each site answering after HOLD_MS.
# Prints for each: requests testweb received, seconds, requests/s, and the
# violations testweb counted (a site with two requests in flight at once,
# or two arrivals closer than DELAY_MS: Scrapy's delay runs from one
# request's start to the next, the gateway's from its end, so the rule
# both are held to is the weaker one); then the ratio wpfs/Scrapy. Goal:
# >= 10 with zero violations.
# Knobs: CRAWL_SITES (1000), CRAWL_PAGES (10), CRAWL_DELAY_MS (200),
# CRAWL_HOLD_MS (20), SCRAPY_CONCURRENCY (256, the gateway's default budget).
. "$WPFS_ROOT/tests/lib.sh"
SITES=${CRAWL_SITES:-1000}
PAGES=${CRAWL_PAGES:-10}
DELAY_MS=${CRAWL_DELAY_MS:-200}
HOLD_MS=${CRAWL_HOLD_MS:-20}
CONC=${SCRAPY_CONCURRENCY:-256}
SLACK_MS=5
TOKEN=bench-discover-token
PY=/usr/bin/python3
$PY -c 'import scrapy' 2>/dev/null || bail "python3-scrapy is missing (make deps)"

start_testweb --generate "sites=$SITES,pages=$PAGES,links=6,cross=0.2,dups=0.1,hold_ms=$HOLD_MS,seed=9" \
  --log-level warn
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms "$DELAY_MS" --delay-factor 0 --log-level warn
for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
now_ms() { date +%s%3N; }

# testweb's view of the run: requests, and sites that broke politeness.
record() {  # name seconds
  local sites req overlap gaps
  sites=$(curl -s "$TESTWEB_CTL/sites")
  req=$(jq '[.[].request_count] | add // 0' <<<"$sites")
  overlap=$(jq '[.[] | select(.max_in_flight > 1)] | length' <<<"$sites")
  gaps=$(jq --argjson m $((DELAY_MS - SLACK_MS)) \
    '[.[] | select(.min_arrival_gap_ms != null and .min_arrival_gap_ms < $m)] | length' <<<"$sites")
  closest=$(jq '[.[] | .min_arrival_gap_ms // empty] | min // 0 | floor' <<<"$sites")
  echo "$req $overlap $gaps $closest"
}
report() {  # name requests seconds overlaps gaps closest
  awk -v n="$1" -v r="$2" -v s="$3" -v o="$4" -v g="$5" -v c="$6" 'BEGIN {
    printf "   %-14s %6d requests in %7.2f s = %8.1f requests/s; violations: %d sites overlapped, %d sites with arrivals closer than the delay (closest %d ms)\n",
      n, r, s, r / s, o, g, c }'
}

curl -s -X POST "$TESTWEB_CTL/reset" >/dev/null
t0=$(now_ms)
$PY "$WPFS_ROOT/tests/bench/bench_crawl_scrapy.py" "$T_DIR/seeds" \
  "$(awk -v d="$DELAY_MS" 'BEGIN { print d / 1000 }')" "$CONC" >"$T_DIR/scrapy.json" 2>"$T_DIR/scrapy.log"
t1=$(now_ms)
read -r s_req s_over s_gap s_close < <(record scrapy)
s_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1000 }')

curl -s -X POST "$TESTWEB_CTL/reset" >/dev/null
t0=$(now_ms)
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --scope any --sitemaps=false --log-level warn \
  >"$T_DIR/wpfs.json" 2>"$T_DIR/wpfs.log"
t1=$(now_ms)
read -r w_req w_over w_gap w_close < <(record wpfs)
w_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1000 }')

echo "   $SITES sites x $PAGES pages, ${DELAY_MS} ms between two requests to a site, ${HOLD_MS} ms per answer"
report scrapy "$s_req" "$s_secs" "$s_over" "$s_gap" "$s_close"
report wpfs-discover "$w_req" "$w_secs" "$w_over" "$w_gap" "$w_close"
awk -v a="$w_req" -v b="$w_secs" -v c="$s_req" -v d="$s_secs" 'BEGIN {
  printf "   ratio wpfs-discover / scrapy: x%.2f requests/s (goal: x10, zero violations)\n", (a / b) / (c / d) }'
[ "$w_over" -eq 0 ] && [ "$w_gap" -eq 0 ]
