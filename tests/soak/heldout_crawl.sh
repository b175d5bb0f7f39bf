#!/bin/bash
# timeout: 300
# The held-out crawl: an ordinary web crawled through the whole stack as
# `make run` deploys it (state and cache Redis, llfs, hlfs with its
# defaults), by wpfs-discover --scope any. 90 generated sites (pages of
# ~6 KiB with 30 links each, a third across sites), 10 sites with
# Crawl-delay: 0.2, one whose robots.txt answers 503, one that links to
# /private/ pages (disallowed everywhere). HELDOUT_SEED picks the world.
#
# Checked: the gateway and the fetcher are still up at the end, with clean
# logs; every page of every open site fetched; nothing disallowed fetched,
# nothing but robots.txt asked of the 503 site; at most one request in
# flight per site; Crawl-delay kept. `make heldout` runs it HELDOUT_RUNS
# times (default 20) with different worlds.
. "$WPFS_ROOT/tests/lib.sh"
seed=${HELDOUT_SEED:-1}
GEN=90 PAGES=20 DELAYED=10
TOKEN=heldout-token
echo "# seed $seed"
{
  printf '{ "generate": "sites=%d,pages=%d,links=30,cross=0.33,dups=0.1,page_bytes=6000,seed=%d",\n' \
    "$GEN" "$PAGES" "$seed"
  printf '  "sites": [\n'
  for k in $(seq 1 $DELAYED); do
    printf '    { "address": "127.30.0.%d", "pages": %d, "robots": { "crawl_delay": 0.2 } },\n' "$k" "$PAGES"
  done
  printf '    { "address": "127.31.0.1", "pages": %d, "robots": { "status": 503 } },\n' "$PAGES"
  printf '    { "address": "127.31.0.2", "pages": 0, "paths": { "/": { "kind": "body", "ctype": "text/html",\n'
  printf '      "body": "<a href=/private/a.html>a</a> <a href=/open.html>o</a>" },\n'
  printf '      "/open.html": { "kind": "body", "ctype": "text/html", "body": "<a href=/private/b.html>b</a>" } } }\n'
  printf '  ] }\n'
} >"$T_DIR/sites.json"
start_testweb --sites "$T_DIR/sites.json"
start_dnsmasq "$GEN"
start_redis
start_redis_cache 256mb
start_llfs
start_hlfs a --token "$TOKEN" --cache-redis "127.0.0.1:$CACHE_REDIS_PORT"

for i in $(seq 0 $((GEN - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
for k in $(seq 1 $DELAYED); do echo "http://127.30.0.$k:$TESTWEB_PORT/"; done >>"$T_DIR/seeds"
echo "http://127.31.0.1:$TESTWEB_PORT/" >>"$T_DIR/seeds"
echo "http://127.31.0.2:$TESTWEB_PORT/" >>"$T_DIR/seeds"
t0=$(date +%s.%N)
WPFS_TOKEN=$TOKEN timeout 240 "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --scope any --log-level warn >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "the crawl ends (exit 0)"
secs=$(echo "$(date +%s.%N) - $t0" | bc)
S=$(tail -1 "$T_DIR/summary")
echo "# $(jq -r .pages <<<"$S") pages in ${secs}s"
ok "the gateway is up" kill -0 "$HLFS_PID"
ok "the fetcher is up" kill -0 "$LLFS_PID"
ok "the gateway serves" curl -sf "$HLFS_URL/readyz" -o /dev/null
ok "no error lines in the gateway's log" sh -c "! grep -a '\"level\":\"error\"' '$T_DIR/hlfs-a.log'"
ok "no sanitizer report" sh -c "! grep -la 'runtime error\|AddressSanitizer\|LeakSanitizer' '$T_DIR'/*.log"

# testweb's record, per site
missing=0 overlaps=0 early=0
site_paths() { tw_site_json "$1" "requests=100000" | jq -r '.requests[] | select(.method == "GET") | .path'; }
check_site() {  # KEY: all pages asked, one request at a time
  local j
  j=$(tw_site_json "$1" "requests=100000")
  [ "$(jq -r .max_in_flight <<<"$j")" -le 1 ] || overlaps=$((overlaps + 1))
  jq -r '.requests[] | select(.method == "GET") | .path' <<<"$j" >"$T_DIR/p"
  grep -qx / "$T_DIR/p" || missing=$((missing + 1))
  for p in $(seq 1 $((PAGES - 1))); do grep -qx "/p/$p.html" "$T_DIR/p" || missing=$((missing + 1)); done
}
for i in $(seq 0 $((GEN - 1))); do check_site "site$i.test"; done
for k in $(seq 1 $DELAYED); do
  check_site "127.30.0.$k"
  g=$(tw_site_field "127.30.0.$k" .min_gap_ms)
  [ "$(echo "$g >= 195" | bc)" = 1 ] || { early=$((early + 1)); echo "# 127.30.0.$k: min gap ${g} ms"; }
done
is "$missing" 0 "every page of every open site fetched"
is "$overlaps" 0 "never two requests of one site in flight"
is "$early" 0 "Crawl-delay: 0.2 kept on all $DELAYED sites (no gap under 195 ms)"
is "$(site_paths 127.31.0.1 | grep -vc '^/robots.txt$')" 0 "robots.txt 503: nothing else asked of that site"
is "$(site_paths 127.31.0.2 | grep -c '^/private/')" 0 "no /private/ page fetched"
is "$(jq -r 'select(.url | contains("/private/")) | .outcome' "$T_DIR/out/crawl.jsonl" | sort -u)" \
  robots_disallowed "the /private/ links recorded as robots_disallowed"
done_testing
