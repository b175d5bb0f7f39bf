#!/bin/bash
# timeout: 120
# The gateway's REST API end to end (redis + testweb + llfs + hlfs): keys,
# validation answers, batches, results with at-least-once delivery,
# synchronous fetch, robots.txt enforcement and explanation, site state.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_testweb --generate sites=5,pages=5
start_llfs
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0 --visibility-ms 1500
T=devtoken-123
u() { echo "http://127.10.0.$(( $1 + 1 )):$TESTWEB_PORT$2"; }

# Keys, and validation: each error names its field (the single-request
# cases are files in tests/cases/hlfs-api/, run by cases.sh).
AUTH=(-H "Authorization: Bearer $T")
big=$(jq -cn '{urls: [range(5001) | "http://a/\(.)"]}')
api_cases api_req <<'CASES'
# STATUS TYPE FIELD | LABEL | api_req ARGS (api_cases, tests/lib.sh)
401 - - | no key: 401 | -d '{"urls":["http://a/"]}' POST "$HLFS_URL/v1/batches"
401 - - | unknown key: 401 | -H 'Authorization: Bearer wrong-token' GET "$HLFS_URL/v1/results"
CASES
is "$(curl -s -D- -o /dev/null "$HLFS_URL/v1/stats" | grep -ci '^WWW-Authenticate: Bearer')" 1 \
  "401 names the Bearer scheme"
api_cases api_req <<'CASES'
413 batch-too-large - | 5001 URLs: 413 | "${AUTH[@]}" -d "$big" POST "$HLFS_URL/v1/batches"
CASES
GW_TOKEN=$T

# A batch: per-URL answers in order.
body=$(jq -cn --arg a "$(u 1 /)" --arg b "$(u 1 /p/1)" --arg c "$(u 1 /private/x)" \
  '{urls: [$a, {url: $b, priority: 7}, "ftp://x/", "http://a:99999/", $c]}')

out=$(gw POST /v1/batches "$body")
is "$(gws)" 200 "batch answered 200"
is "$(echo "$out" | jq -c '[.items[].status]')" \
   '["accepted","accepted","rejected","rejected","accepted"]' "per-URL statuses in order"
is "$(echo "$out" | jq -r '.items[2].reason + "/" + .items[3].url_error')" \
   "unsupported_scheme/bad_port" "rejections say why"
dup=$(gw POST /v1/batches "$(jq -cn --arg a "$(u 3 /p/3)" '{urls: [$a, $a]}')")
is "$(echo "$dup" | jq -c '[.items[].status]')" '["accepted","duplicate"]' \
   "the same URL twice in a batch: the second is a duplicate"
is "$(echo "$dup" | jq -r '.items[0].id == .items[1].id')" "true" "a duplicate carries the request's id"

# Results: read without ack, get them again after the visibility timeout, then ack.
first=$(gw GET '/v1/results?max=10&wait_ms=10000')
n=$(echo "$first" | jq '.results | length')
t0=$(date +%s)
while [ "$n" -lt 4 ] && [ $(( $(date +%s) - t0 )) -lt 15 ]; do
  more=$(gw GET '/v1/results?max=10&wait_ms=2000')
  first=$(jq -cn --argjson a "$first" --argjson b "$more" '{results: ($a.results + $b.results)}')
  n=$(echo "$first" | jq '.results | length')
done
is "$n" 4 "four results delivered"
ok_page=$(echo "$first" | jq -r --arg u "$(u 1 /)" '.results[] | select(.url == $u) | .outcome + "/" + (.status|tostring)')
is "$ok_page" "ok/200" "the page result: ok 200"
body_len=$(echo "$first" | jq -r --arg u "$(u 1 /)" '.results[] | select(.url == $u) | .body_base64' | base64 -d | wc -c)
cmp_ge "$body_len" 100 "the page body is inlined"
dis=$(echo "$first" | jq -r --arg u "$(u 1 /private/x)" '.results[] | select(.url == $u) | .outcome')
is "$dis" "robots_disallowed" "robots.txt disallow enforced"
is "$(tw_site_field 127.10.0.2 '[.requests[].path] | index("/private/x")')" "null" \
   "testweb never saw the disallowed path"
is "$(tw_site_field 127.10.0.2 '.requests[0].path')" "/robots.txt" "robots.txt fetched first"
sleep 2
again=$(gw GET '/v1/results?max=10&wait_ms=3000')
is "$(echo "$again" | jq '.results | length')" 4 "unacknowledged results come again"
acks=$(echo "$again" | jq -c '{deliveries: [.results[].delivery]}')
out=$(gw POST /v1/results/ack "$acks")
is "$(echo "$out" | jq .acked)" 4 "ack counts 4"
sleep 2
none=$(gw GET '/v1/results?max=10')
is "$(echo "$none" | jq '.results | length')" 0 "acknowledged results are gone"

# Synchronous fetch.
out=$(gw POST /v1/fetch "$(jq -cn --arg a "$(u 2 /p/2)" '{url: $a, wait_ms: 10000}')")
is "$(gws)/$(echo "$out" | jq -r .outcome)/$(echo "$out" | jq -r .status)" "200/ok/200" \
   "synchronous fetch answers with the page"
api_cases api_req <<'CASES'
400 unsupported-scheme - | synchronous fetch validates its URL | \
    "${AUTH[@]}" -d '{"url":"gopher://x/"}' POST "$HLFS_URL/v1/fetch"
CASES

# Robots explanation and site state.
out=$(gw GET "/v1/robots?url=$(u 1 /private/y)")
is "$(echo "$out" | jq -c '[.allowed, .rule_type, .rule, .robots_status]')" \
   '[false,"disallow","/private/","ok"]' "robots explain names the deciding rule"
out=$(gw GET /v1/sites/127.10.0.2)
is "$(gws)/$(echo "$out" | jq -r .site)" "200/127.10.0.2" "site state"
is "$(curl -s "$HLFS_URL/metrics" | grep -c '^hlfs_sched_robots_disallowed_total 1$')" 1 \
   "metrics count the robots decision"
m=$(curl -s "$HLFS_URL/metrics")
is "$(echo "$m" | grep -c '^hlfs_client_results_total{client="dev",outcome="robots_disallowed"} [1-9]')" 1 \
   "per-client metrics count the robots decision"
is "$(echo "$m" | grep -c '^hlfs_client_submitted_total{client="dev",answer="accepted"} [1-9]')" 1 \
   "per-client metrics count accepted URLs"
cmp_ge "$(echo "$m" | grep '^hlfs_politeness_delays_total{reason="min_delay"}' | awk '{print $2}')" 1 \
   "politeness decisions are counted by reason"
done_testing
