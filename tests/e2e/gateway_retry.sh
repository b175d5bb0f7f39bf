#!/bin/bash
# timeout: 120
# The retry policy (docs/retries.md): a transient failure of a site (503,
# 429, a reset connection) is tried again, under the site's politeness and
# its Retry-After, until the request's attempts run out: its own
# max_attempts, else its client's, else the gateway's (3); what is final
# (404, a robots.txt refusal, a blocked address) ends at the first attempt.
# Every result lists its tries. Times are measured at the origin.
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/sites.json" <<'JSON'
{"sites": [
  {"address": "127.32.0.1", "pages": 1}, {"address": "127.32.0.2", "pages": 1},
  {"address": "127.32.0.3", "pages": 1}, {"address": "127.32.0.4", "pages": 1},
  {"address": "127.32.0.5", "pages": 1}, {"address": "127.32.0.6", "pages": 1},
  {"address": "127.32.0.7", "pages": 1}, {"address": "127.32.0.8", "pages": 1},
  {"address": "127.32.0.9", "pages": 1}, {"address": "127.32.0.10", "pages": 1}
]}
JSON
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs
cat >"$T_DIR/clients.json" <<'JSON'
{"clients": [
  {"name": "one", "token": "token-retry-one"},
  {"name": "two", "token": "token-retry-two", "max_attempts": 2}
]}
JSON
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 300 --delay-factor 0 \
  --backoff-base-ms 200 --log-level warn
P=$TESTWEB_PORT
u() { echo "http://127.32.0.$1:$P$2"; }
GW_TOKEN=token-retry-one
body=$(jq -cn --arg a "$(u 1 '/_b/flaky/2?retry_after=1')" --arg b "$(u 2 /_b/status/404)" \
  --arg c "$(u 3 /private/x)" --arg d "$(u 4 /_b/flaky/9)" --arg e "$(u 5 /_b/flaky/9)" \
  --arg f "$(u 6 /_b/flaky/3)" --arg g "$(u 7 '/_b/body?size=100000&reset_after=100')" \
  '{urls: [$a, $b, $c, {url: $d, max_attempts: 2}, $e, {url: $f, max_attempts: 4}, $g,
           "http://10.0.0.1/x"]}')
is "$(gw POST /v1/batches "$body" | jq -c '[.items[].status] | unique')" '["accepted"]' \
  "eight URLs accepted"
GW_TOKEN=token-retry-two
body=$(jq -cn --arg a "$(u 8 /_b/flaky/9)" --arg b "$(u 9 /_b/flaky/9)" \
  '{urls: [$a, {url: $b, max_attempts: 3}]}')
is "$(gw POST /v1/batches "$body" | jq -c '[.items[].status] | unique')" '["accepted"]' \
  "the second client's two URLs accepted"
# a synchronous fetch retries too: 429 once, then 200
GW_TOKEN=token-retry-one
sync=$(gw POST /v1/fetch "$(jq -cn --arg u "$(u 10 '/_b/flaky/1?status=429')" \
  '{url: $u, wait_ms: 20000}')")
is "$(echo "$sync" | jq -c '[.outcome, .status, .attempts, [.tries[].status]]')" \
  '["ok",200,2,[429,200]]' "a synchronous fetch: 429, then 200 at attempt 2"

gw_results_all token-retry-one 8 60 >"$T_DIR/one.jsonl"
gw_results_all token-retry-two 2 60 >"$T_DIR/two.jsonl"
is "$(wc -l <"$T_DIR/one.jsonl")/$(wc -l <"$T_DIR/two.jsonl")" 8/2 "a result for each"
res() { jq -c --arg u "$2" 'select(.url == $u)' "$T_DIR/$1.jsonl" | head -1; }
sum() { jq -c '[.outcome, .status, .attempts, [.tries[] | [.outcome, .status, .counted]]]'; }

r=$(res one "$(u 1 '/_b/flaky/2?retry_after=1')")
is "$(echo "$r" | sum)" \
  '["ok",200,3,[["ok",503,true],["ok",503,true],["ok",200,true]]]' \
  "503, 503 (Retry-After: 1), then 200: ok at attempt 3, each try listed"
ok "the tries are in time order" \
  test "$(echo "$r" | jq '[.tries[].at] | . == sort')" = true
rec=$(tw_site_json 127.32.0.1 requests=100)
flaky=$(jq -c '[.requests[] | select(.path | startswith("/_b/flaky"))]' <<<"$rec")
is "$(jq -c '[.[].status]' <<<"$flaky")" '[503,503,200]' "the origin saw 503, 503, 200"
gaps=$(jq -c '[range(1; length) as $i | ((.[$i].arrive_us - .[$i - 1].done_us) / 1000 | floor)]' \
  <<<"$flaky")
echo "# gaps at the origin between the tries (ms): $gaps"
ok "each retry came after the site's Retry-After (1 s)" \
  test "$(jq '[.[] | select(. < 995)] | length' <<<"$gaps")" = 0
is "$(jq -r '.min_gap_ms >= 299' <<<"$rec")" true \
  "nothing reached the site within its delay (300 ms)"

is "$(res one "$(u 2 /_b/status/404)" | sum)" '["ok",404,1,[["ok",404,true]]]' \
  "404: final at attempt 1"
is "$(tw_site_field 127.32.0.2 '[.requests[] | select(.path == "/_b/status/404")] | length')" 1 \
  "asked once"
is "$(res one "$(u 3 /private/x)" | jq -c '[.outcome, .attempts, (.tries | length)]')" \
  '["robots_disallowed",1,1]' "a robots.txt refusal: final at attempt 1"
is "$(res one "http://10.0.0.1/x" | jq -c '[.outcome, .cause, .attempts, (.tries | length)]')" \
  '["robots_unavailable","blocked_address",1,1]' "a blocked address: final at attempt 1"

is "$(res one "$(u 4 /_b/flaky/9)" | sum)" '["ok",503,2,[["ok",503,true],["ok",503,true]]]' \
  "max_attempts 2 asked by the request: 503 final at attempt 2"
is "$(tw_site_field 127.32.0.4 '[.requests[] | select(.path == "/_b/flaky/9")] | length')" 2 \
  "and the origin was asked twice"
is "$(res one "$(u 5 /_b/flaky/9)" | jq -c '[.status, .attempts]')" '[503,3]' \
  "nothing asked: the gateway's 3 attempts"
gaps=$(tw_site_json 127.32.0.5 requests=100 | jq -c '[.requests[] | select(.path == "/_b/flaky/9")] |
  [range(1; length) as $i | ((.[$i].arrive_us - .[$i - 1].done_us) / 1000 | floor)]')
echo "# backoff gaps at the origin (ms): $gaps"
ok "the retries backed off: 200 ms, then 400 ms and more (and never within the 300 ms delay)" \
  test "$(jq '.[0] >= 299 and .[1] >= 399' <<<"$gaps")" = true
is "$(res one "$(u 6 /_b/flaky/3)" | jq -c '[.status, .attempts]')" '[200,4]' \
  "max_attempts 4: three 503s, then 200 at attempt 4"
is "$(res one "$(u 7 '/_b/body?size=100000&reset_after=100')" | jq -c '[.outcome, .attempts, [.tries[].outcome]]')" \
  '["reset",3,["reset","reset","reset"]]' "a connection reset each time: tried 3 times"

is "$(res two "$(u 8 /_b/flaky/9)" | jq -c '[.status, .attempts]')" '[503,2]' \
  "the client's max_attempts (2, tokens file)"
is "$(res two "$(u 9 /_b/flaky/9)" | jq -c '[.status, .attempts]')" '[503,3]' \
  "the request's max_attempts (3) over its client's"

is "$(gw POST /v1/batches '{"urls": ["http://x.test/"], "max_attempts": 5}' | jq -r .title)/$(gws)" \
  "Invalid field/422" "max_attempts beyond 4 refused"
m=$(curl -s "$HLFS_URL/metrics")
ok "the retries are counted" test "$(echo "$m" | awk '$1 == "hlfs_sched_retries_total" { print $2 }')" -ge 10
is "$(redis-cli -p "$REDIS_PORT" HLEN 'ra:{0}')" 0 "no retry record left behind"
done_testing
