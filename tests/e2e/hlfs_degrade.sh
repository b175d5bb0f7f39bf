#!/bin/bash
# timeout: 90
# A dependency lost does not take the gateway out of service: it stays
# ready and serves what it can (results stored, URLs queued), answering
# 503 with Retry-After only what needs the missing part.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_redis_cache 64mb
start_testweb --generate sites=2,pages=8
start_llfs
# No fresh pages: a result read through the replica that fetched it would
# take its page from memory (tests/e2e/hlfs_results_fresh.sh), and this
# test reads what the page cache's loss leaves.
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0 \
  --cache-redis "127.0.0.1:$CACHE_REDIS_PORT" --fresh-pages-bytes 0
GW_TOKEN=devtoken-123
metric() { curl -s "$HLFS_URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
ready() { curl -s -o /dev/null -w '%{http_code}' "$HLFS_URL/readyz"; }
urls=$(for i in 1 2 3 4 5 6; do tw_url 127.10.0.$(( i % 2 + 1 )) "/p/$i.html"; done |
  jq -Rcn '{urls: [inputs]}')
gw POST /v1/batches "$urls" >/dev/null
ok "six results stored" wait_for 20 bash -c \
  "[ \"\$(redis-cli -p $REDIS_PORT XLEN 'x:{0}dev')\" = 6 ]"

# No fetcher.
kill "$LLFS_PID"
ok "the fetcher is gone: hlfs_fetcher_up 0" wait_for 10 bash -c \
  "curl -s $HLFS_URL/metrics | grep -qx 'hlfs_fetcher_up 0'"
is "$(ready)" 200 "still ready"
out=$(gw POST /v1/batches "{\"urls\": [\"$(tw_url 127.10.0.1 /p/7.html)\"]}")
is "$(gws)/$(echo "$out" | jq -r '.items[0].status')" "200/accepted" "URLs are still accepted"
out=$(gw GET '/v1/results?max=3')
is "$(gws)/$(echo "$out" | jq '[.results[] | select(.outcome == "ok" and .body_bytes > 0)] | length')" \
  "200/3" "results already stored are read, with their pages"
gw POST /v1/results/ack "$(echo "$out" | jq -c '{deliveries: [.results[].delivery]}')" >/dev/null

# No page cache.
kill "$CACHE_REDIS_PID"
ok "the page cache is gone: hlfs_page_cache_up 0" wait_for 10 bash -c \
  "curl -s $HLFS_URL/metrics | grep -qx 'hlfs_page_cache_up 0'"
is "$(ready)" 200 "still ready"
out=$(gw GET '/v1/results?max=3')
is "$(gws)/$(echo "$out" | jq -c '[.results[].page] | unique')" '200/["unavailable"]' \
  "results are delivered without their page"
gw GET "/v1/pages?url=$(tw_url 127.10.0.1 /p/1.html)" >/dev/null
is "$(gws)" 503 "a page read answers 503"

# No state Redis.
kill "$REDIS_PID"
ok "the state Redis is gone: hlfs_redis_up 0" wait_for 10 bash -c \
  "curl -s $HLFS_URL/metrics | grep -qx 'hlfs_redis_up 0'"
is "$(ready)" 200 "still ready: clients get answers, not refused connections"
code=$(curl -s -D "$T_DIR/h" -o "$T_DIR/b" -w '%{http_code}' -H "Authorization: Bearer $GW_TOKEN" \
  -d "$urls" "$HLFS_URL/v1/batches")
is "$code/$(jq -r .type "$T_DIR/b")" "503/urn:wpfs:problem:store-unavailable" \
  "a batch answers 503 store-unavailable"
ok "with Retry-After" grep -qi '^Retry-After: ' "$T_DIR/h"
is "$(curl -s -o /dev/null -w '%{http_code}' "$HLFS_URL/healthz")" 200 "healthz 200"

# A replica that never reached its Redis takes no traffic.
start_hlfs_noready() {
  bg hlfs-b "$WPFS_BIN/hlfs" --listen-port 0 --port-file "$T_DIR/b.port" \
    --redis "127.0.0.1:$(freeport)" --llfs "$LLFS_URL" --replica b --token devtoken-123
  wait_for 10 test -s "$T_DIR/b.port"
}
start_hlfs_noready
out=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$(cat "$T_DIR/b.port")/readyz")
is "${out##* }/$(echo "${out% *}" | jq -r .detail)" "503/redis not reached yet" \
  "a replica that never reached Redis is not ready"
done_testing
