#!/bin/bash
# A whole crawl at scale: SCALE_SITES x SCALE_PAGES generated pages (make
# bench: 200 x 200; the #15 figure: SCALE_SITES=1000 SCALE_PAGES=1000, one
# million pages, about 1.9 million requests, 15 minutes here), crawled to the
# end by wpfs-discover
# through the whole stack (hlfs --min-delay-ms 0 --delay-factor 0, a page
# cache Redis with an LRU bound). Samples the resident memory of the
# crawler, the gateway and both Redis every second and prints it every
# SCALE_EVERY seconds (3): memory that stays flat while the crawl grows is the
# claim checked here, with the crawl's rate and that it ran to the end.
. "$WPFS_ROOT/tests/lib.sh"
SITES=${SCALE_SITES:-200}
PAGES=${SCALE_PAGES:-200}
TOKEN=bench-scale-token
cat >"$T_DIR/sites.json" <<EOF
{ "generate": "sites=$SITES,pages=$PAGES,links=30,cross=0.33,dups=0.05,page_bytes=7000,seed=7" }
EOF
start_testweb --sites "$T_DIR/sites.json" --log-level warn
start_crawl_stack "$SITES" 256mb "$TOKEN"
for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
rss() { awk '$1 == "VmRSS:" { print int($2 / 1024) }' "/proc/$1/status" 2>/dev/null || echo 0; }
pages() { curl -s "$TESTWEB_CTL/sites" | jq '[.[].request_count] | add // 0'; }

t0=$(date +%s%3N)
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --scope any --sitemaps=false --log-level warn \
  >"$T_DIR/wpfs.json" 2>"$T_DIR/wpfs.log" &
dpid=$!
every=${SCALE_EVERY:-3}
echo "   $SITES sites x $PAGES pages: resident MiB (crawler, hlfs, state Redis, cache Redis)"
printf '   %8s %8s %8s %8s %8s %8s\n' requests secs crawler hlfs redis cache
peak_c=0 peak_h=0 s=0
while kill -0 "$dpid" 2>/dev/null; do
  sleep 1
  s=$((s + 1))
  c=$(rss "$dpid") h=$(rss "$HLFS_PID")
  [ "$c" -gt "$peak_c" ] && peak_c=$c
  [ "$h" -gt "$peak_h" ] && peak_h=$h
  [ $((s % every)) -eq 0 ] && printf '   %8d %8d %8d %8d %8d %8d\n' "$(pages)" "$s" "$c" "$h" \
    "$(rss "$REDIS_PID")" "$(rss "$CACHE_REDIS_PID")"
done
wait "$dpid"
rc=$?
t1=$(date +%s%3N)
n=$(pages)
awk -v n="$n" -v ms=$((t1 - t0)) -v rc="$rc" -v pc="$peak_c" -v ph="$peak_h" 'BEGIN {
  printf "   %d requests in %.1f s = %.0f pages/s; crawler exit %d; peak RSS crawler %d MiB, hlfs %d MiB\n",
    n, ms / 1000, n * 1000 / ms, rc, pc, ph }'
[ "$rc" -eq 0 ] && [ "$n" -ge $((SITES * PAGES)) ]
