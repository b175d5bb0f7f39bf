#!/bin/bash
# timeout: 150
# lane: beside (mostly waits: tests/run.sh)
# A fetched page survives a page cache outage (docs/retries.md). 20 sites
# answer a page 1.5 s after the request; with the 20 fetches in flight
# the page cache Redis is killed, and started again on its port 3 s later.
# The pages that came meanwhile are held in the gateway and stored once
# it is back: every result is ok with its page, and no site is asked for
# its page twice. Then, with a hold of 1 s and the page cache down for
# longer, a page is given up: its request goes back to its queue without
# counting an attempt (page_store_error among its tries) and is fetched
# again once the page cache is back; never a final page_store_error.
. "$WPFS_ROOT/tests/lib.sh"
N=20
start_testweb --generate "sites=$N,pages=3"
start_redis
start_redis_cache 64mb
CPORT=$CACHE_REDIS_PORT
start_llfs
start_hlfs a --token hold-token-1 --cache-redis "127.0.0.1:$CPORT" --min-delay-ms 100 \
  --delay-factor 0 --poll-ms 100 --page-hold-ms 30s --log-level warn
GW_TOKEN=hold-token-1
P=$TESTWEB_PORT
metric() { curl -s "$HLFS_URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
cache_up() {
  bg "redis-cache-$1" redis-server --port "$CPORT" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$T_DIR" --logfile "" --protected-mode no
  CACHE_REDIS_PID=$BG_PID
  wait_for 5 redis-cli -p "$CPORT" ping >/dev/null || bail "the page cache did not restart"
}
slow=/_b/body?hold_ms=1500\&size=3000
urls=$(for s in $(seq 1 $N); do echo "http://127.10.0.$s:$P$slow"; done | jq -Rcn '{urls: [inputs]}')
is "$(gw POST /v1/batches "$urls" | jq -c '[.items[].status] | unique')" '["accepted"]' \
  "$N URLs of $N slow sites accepted"
wait_for 20 bash -c "[ \"\$(curl -s $TESTWEB_CTL/stats | jq .in_flight)\" -ge $N ]" ||
  bail "the fetches did not get going"
kill -9 "$CACHE_REDIS_PID"
echo "# page cache killed with $(curl -s "$TESTWEB_CTL/stats" | jq .in_flight) pages in flight"
sleep 3
held=$(metric hlfs_pages_held_total)
cache_up 2
gw_results_all "$GW_TOKEN" $N 60 >"$T_DIR/res.jsonl"
is "$(wc -l <"$T_DIR/res.jsonl")" $N "a result for each URL"
is "$(jq -r '[.outcome, .status] | @tsv' "$T_DIR/res.jsonl" | sort -u)" "$(printf 'ok\t200')" \
  "every one ok (200): none page_store_error"
is "$(jq -r 'select(.body_bytes != 3000 or .page != null) | .url' "$T_DIR/res.jsonl" | wc -l)" 0 \
  "...each with its page"
cmp_ge "$held" $N "the $N pages that came while it was down were held (hlfs_pages_held_total $held)"
cmp_ge "$(metric hlfs_pages_held_stored_total)" $N "...and stored once it was back"
twice=0
for s in $(seq 1 $N); do
  n=$(tw_site_json "127.10.0.$s" "last=20" | jq '[.requests[] | select(.path | startswith("/_b/body"))] | length')
  [ "$n" -ne 1 ] && twice=$((twice + 1))
done
is "$twice" 0 "no site was asked for its page twice"
got=$(gw GET "/v1/pages?url=http://127.10.0.1:$P/_b/body%3Fhold_ms%3D1500%26size%3D3000" |
  jq -r .body_bytes)
is "$got" 3000 "the held page is in the page cache"

# A hold that runs out: the request goes back to its queue, uncounted.
kill "$HLFS_PID"
wait "$HLFS_PID" 2>/dev/null
start_hlfs b --token hold-token-1 --cache-redis "127.0.0.1:$CPORT" --min-delay-ms 100 \
  --delay-factor 0 --poll-ms 100 --page-hold-ms 1s --log-level warn
url="http://127.10.0.2:$P/_b/body?hold_ms=300&size=1001"
kill -9 "$CACHE_REDIS_PID"
is "$(gw POST /v1/batches "{\"urls\": [\"$url\"]}" | jq -r '.items[0].status')" accepted \
  "a URL accepted with the page cache down"
gave_up() { [ "$(metric hlfs_page_store_errors_total)" -ge 1 ]; }
ok "its page is given up after a 1 s hold" wait_for 20 gave_up
cache_up 3
gw_results_all "$GW_TOKEN" 1 60 >"$T_DIR/res2.jsonl"
is "$(jq -r '[.outcome, .status, .attempts] | @tsv' "$T_DIR/res2.jsonl")" "$(printf 'ok\t200\t1')" \
  "fetched again once the page cache is back: ok at attempt 1"
ok "...its tries name the page cache's failure, uncounted" \
  jq -e '[.tries[] | select(.outcome == "page_store_error" and .counted == false)] | length >= 1' \
  "$T_DIR/res2.jsonl"
done_testing
