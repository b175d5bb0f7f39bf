#!/bin/bash
# timeout: 90
# A result is given the page its fetch stored from the replica that fetched
# it (hlfs/fetch/fresh_pages.h), with no page cache read: the page cache can
# lose the page before the result is read and the result still carries it,
# byte for byte. Another replica (or one with --fresh-pages-bytes 0) reads
# the page cache, as before, and finds nothing; a purge through the
# replica drops its copy too.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_testweb --generate sites=2,pages=5
start_llfs
start_hlfs b --token devtoken-123 --min-delay-ms 0 --delay-factor 0 --visibility-ms 1000 \
  --fresh-pages-bytes 0
B_URL=$HLFS_URL B_PID=$HLFS_PID
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0 --visibility-ms 1000
GW_TOKEN=devtoken-123
metric() { curl -s "$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
read_all() {  # BASE: every result waiting, as JSON
  curl -s -H "Authorization: Bearer $GW_TOKEN" "$1/v1/results?max=100&wait_ms=2000"
}

# b is stopped while there is work to claim: a is the replica that fetches.
kill -STOP "$B_PID"
urls=$(printf '"%s",' "$(tw_url 127.10.0.1 /p/1)" "$(tw_url 127.10.0.1 /p/2)" \
  "$(tw_url 127.10.0.2 /p/3)")
gw POST /v1/batches "{\"urls\": [${urls%,}]}" >/dev/null
ok "three results published" wait_for 30 results_ge 3
direct=$(curl -s "$(tw_url 127.10.0.1 /p/1)" | md5sum)
redis-cli -p "$REDIS_PORT" --scan --pattern 'page:*' | xargs redis-cli -p "$REDIS_PORT" DEL >/dev/null
is "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'page:*' | wc -l)" 0 "the page cache lost every page"

out=$(read_all "$HLFS_URL")
is "$(echo "$out" | jq '[.results[] | select(.outcome == "ok" and .body_bytes > 1000 and (has("page") | not))] | length')" 3 \
  "the fetching replica's results still carry their pages"
is "$(echo "$out" | jq -r --arg u "$(tw_url 127.10.0.1 /p/1)" '.results[] | select(.url == $u) | .body_base64' | base64 -d | md5sum)" \
  "$direct" "byte for byte"
cmp_ge "$(echo "$out" | jq '[.results[].headers | length] | min')" 3 "with their headers"
is "$(metric "$HLFS_URL" hlfs_results_fresh_total)" 3 "hlfs_results_fresh_total counts them"

kill -CONT "$B_PID"
sleep 1.2  # not acknowledged: delivered again after the visibility timeout
out=$(read_all "$B_URL")
is "$(echo "$out" | jq -c '[.results[].page] | unique')" '["expired"]' \
  "another replica reads the page cache, and finds them gone"

# A purge through the replica drops its copy: the result then has no page.
kill -STOP "$B_PID"
u4=$(tw_url 127.10.0.2 /p/4)
gw POST /v1/batches "{\"urls\": [\"$u4\"]}" >/dev/null
ok "a fourth result published" wait_for 30 results_ge 4
gw DELETE "/v1/pages?url=$(jq -rn --arg u "$u4" '$u|@uri')" >/dev/null
is "$(gws)" 200 "purged through the fetching replica"
sleep 1.2
out=$(read_all "$HLFS_URL")
is "$(echo "$out" | jq -r --arg u "$u4" '[.results[] | select(.url == $u) | .page] | unique | join(",")')" \
  expired "after a purge, its result has no page"
kill -CONT "$B_PID"
done_testing
