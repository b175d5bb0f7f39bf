#!/bin/bash
# timeout: 120
# A result says why: robots_unavailable carries the cause of robots.txt's
# failure (the fetch's outcome, the site's status, the fetcher's text), so a
# refused internal address, a name that does not exist and a site that is
# down read differently; redirect outcomes are counted under their names.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_dnsmasq 4
cat >"$T_DIR/sites.json" <<'JSON'
{"generate": "sites=2,pages=3",
 "sites": [
  {"address": "127.21.0.1", "robots": {"status": 503}, "pages": 3},
  {"address": "127.21.0.2", "pages": 0,
   "paths": {"/loop": {"kind": "redirect", "code": 302, "to": "/loop"},
             "/a": {"kind": "redirect", "code": 301, "to": "/b"},
             "/b": {"kind": "redirect", "code": 301, "to": "/c"},
             "/c": {"kind": "redirect", "code": 301, "to": "/d"}}}
 ]}
JSON
start_testweb --sites "$T_DIR/sites.json"
start_llfs
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0
GW_TOKEN=devtoken-123
P=$TESTWEB_PORT
result_of() { jq -c --arg u "$1" 'select(.url == $u)' "$T_DIR/res.jsonl" | head -1; }

body=$(jq -cn --arg r "http://127.21.0.1:$P/p/1.html" --arg l "http://127.21.0.2:$P/loop" \
  --arg m "http://127.21.0.2:$P/a" \
  '{urls: ["http://127.0.0.9:1/x", "http://nx.test/x", $r,
           {url: $l, follow_redirects: 5}, {url: $m, follow_redirects: 1}]}')
is "$(gw POST /v1/batches "$body" | jq -c '[.items[].status] | unique')" '["accepted"]' \
  "five URLs accepted"
gw_results_all "$GW_TOKEN" 5 30 >"$T_DIR/res.jsonl"
is "$(wc -l <"$T_DIR/res.jsonl")" 5 "five results"

r=$(result_of "http://127.0.0.9:1/x")
is "$(echo "$r" | jq -r '.outcome + "/" + .cause')" "robots_unavailable/connect_refused" \
  "a refused connection: robots_unavailable, cause connect_refused"
ok "with the fetcher's text in detail" test -n "$(echo "$r" | jq -r '.detail // empty')"
r=$(result_of "http://nx.test/x")
is "$(echo "$r" | jq -r '.outcome + "/" + .cause')" "robots_unavailable/dns_nxdomain" \
  "a name that does not exist: cause dns_nxdomain"
r=$(result_of "http://127.21.0.1:$P/p/1.html")
is "$(echo "$r" | jq -r '.outcome + "/" + .cause + "/" + (.cause_status|tostring)')" \
  "robots_unavailable/ok/503" "robots.txt answering 503: cause ok, cause_status 503"
is "$(echo "$r" | jq -r .detail)" "robots.txt answered HTTP 503" "and says so"
is "$(result_of "http://127.21.0.2:$P/loop" | jq -r '.outcome + "/" + (has("cause")|tostring)')" \
  "redirect_loop/false" "a redirect loop: redirect_loop, no cause"
is "$(result_of "http://127.21.0.2:$P/a" | jq -r .outcome)" "too_many_redirects" \
  "past the hops asked: too_many_redirects"

m=$(curl -s "$HLFS_URL/metrics")
count() { echo "$m" | awk -v k="hlfs_client_results_total{client=\"dev\",outcome=\"$1\"}" '$1 == k { print $2 }'; }
is "$(count redirect_loop)/$(count too_many_redirects)/$(count robots_unavailable)" "1/1/3" \
  "the client's metrics name redirect_loop, too_many_redirects, robots_unavailable"
is "$(count other)" "" "nothing counted as other"

# The address guard: a gateway whose fetcher allows no internal address.
start_redis
bg llfs-guarded "$WPFS_BIN/llfs" --listen-port 0 --port-file "$T_DIR/llfs2.port" \
  --dns-servers "$DNS_SERVER"
wait_for 10 test -s "$T_DIR/llfs2.port" || bail "guarded llfs did not start"
LLFS_URL="http://127.0.0.1:$(cat "$T_DIR/llfs2.port")"
start_hlfs b --token devtoken-123 --min-delay-ms 0 --delay-factor 0
targets=("http://127.0.0.1:$P/" "http://[::1]/" "http://[::ffff:127.0.0.1]/"
         "http://2130706433/" "http://0x7f000001/" "http://127.1/" "http://169.254.169.254/"
         "http://10.0.0.1/" "http://[fd00::1]/" "http://private.test/" "http://metadata.test/")
out=$(gw POST /v1/batches "$(printf '%s\n' "${targets[@]}" | jq -Rcn '{urls: [inputs]}')")
# numeric spellings of 127.0.0.1 are one canonical URL: one request
n=$(echo "$out" | jq '[.items[] | select(.status == "accepted" or .status == "duplicate") | .id] | unique | length')
is "$n" 9 "internal targets accepted: 9 distinct requests of ${#targets[@]} URLs"
gw_results_all "$GW_TOKEN" "$n" 30 >"$T_DIR/guard.jsonl"
is "$(wc -l <"$T_DIR/guard.jsonl")" "$n" "a result for each"
is "$(jq -r '.outcome + "/" + .cause' "$T_DIR/guard.jsonl" | sort -u)" \
   "robots_unavailable/blocked_address" "each: robots_unavailable, cause blocked_address"
is "$(jq -r 'select((.detail // "") | test("^robots.txt: blocked_address: [a-z_]+$") | not) | .url' \
   "$T_DIR/guard.jsonl")" "" "each with the guard's range in detail"
is "$(jq -r 'select(.url == "http://10.0.0.1/") | .detail' "$T_DIR/guard.jsonl")" \
   "robots.txt: blocked_address: private" "10.0.0.1: private"
done_testing
