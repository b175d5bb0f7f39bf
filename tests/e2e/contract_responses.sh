#!/bin/bash
# timeout: 120
# Real answers of both services checked against openapi.yaml. A stack
# (redis, testweb, llfs, hlfs) is driven through every route of the gateway
# and of the fetcher, success and error cases: each answer's status, media
# type, body schema, problem type and headers are validated by
# tests/contract/validate.mjs, which also fails when an operation of either
# service was never reached. Every problem type the services can produce
# is provoked: bad JSON, bad fields, bad URLs, big bodies and batches,
# missing keys, unknown routes and methods, quotas, deadlines, an
# overloaded fetcher, a stopping fetcher (over a kept-alive connection) and
# finally a gateway whose Redis is gone.
. "$WPFS_ROOT/tests/lib.sh"
. "$WPFS_ROOT/tests/contract/lib.sh"

start_redis
REDIS_PID=$BG_PID
start_testweb --generate sites=5,pages=5
start_llfs --max-request-bytes 4096
LLFS_MAIN=$LLFS_URL
cat >"$T_DIR/clients.json" <<'EOF'
{"clients": [
  {"name": "crawler", "token": "contract-crawler-token"},
  {"name": "slowpoke", "token": "contract-slowpoke-token", "rate": 0.001, "burst": 1},
  {"name": "worker", "token": "contract-worker-token", "role": "crawler"},
  {"name": "scraper", "token": "contract-scraper-token", "role": "metrics"}
]}
EOF
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 \
  --max-batch 10 --max-request-bytes 8192 --max-wait-ms 5000 --visibility-ms 1000
CX_TOKEN=contract-crawler-token
u() { echo "http://127.10.0.$(( $1 + 1 )):$TESTWEB_PORT$2"; }
js() { jq -cn "$@"; }

# ---- operations routes, both services ---------------------------------------
for svc in hlfs llfs; do
  expect "$svc healthz" 200 -s $svc GET /healthz
  expect "$svc readyz" 200 -s $svc GET /readyz
  expect "$svc metrics" 200 -s $svc GET /metrics
  expect "$svc unknown path: 404" 404/not-found -s $svc GET /nope
done

# ---- gateway: keys ------------------------------------------------------------
expect "batches without a key" 401/unauthorized -A -d '{"urls":["http://a/"]}' POST /v1/batches
expect "results with an unknown key" 401/unauthorized -A -H 'Authorization: Bearer nope-nope-nope' \
  GET /v1/results
expect "ack without a key" 401/unauthorized -A -d '{"deliveries":[]}' POST /v1/results/ack
expect "fetch without a key" 401/unauthorized -A -d '{"url":"http://a/"}' POST /v1/fetch
expect "sites without a key" 401/unauthorized -A GET /v1/sites/a
expect "robots without a key" 401/unauthorized -A GET '/v1/robots?url=http://a/'
expect "stats without a key" 401/unauthorized -A GET /v1/stats
expect "status page without a key" 401/unauthorized -A GET /status

# ---- gateway: batches --------------------------------------------------------
big=$(printf 'x%.0s' $(seq 9000))
body=$(js --arg a "$(u 0 /)" --arg b "$(u 0 /p/1)" --arg c "$(u 1 /private/x)" \
  '{urls: [$a, {url: $b, priority: 7, max_age_s: 0}, "ftp://x/", "http://a:99999/", $c, $a],
    priority: 3}')
expect "batch: per-URL answers" 200 -d "$body" POST /v1/batches
is "$(cx_json '[.items[].status] | join(",")')" \
  "accepted,accepted,rejected,rejected,accepted,duplicate" "batch: statuses in order"
expect "batch: invalid JSON" 400/invalid-json -d '{"urls":' POST /v1/batches
expect "batch: JSON but not an object" 400/invalid-json -d '[1]' POST /v1/batches
expect "batch: priority out of range" 422/invalid-field -d '{"urls":[{"url":"http://a/","priority":9}]}' POST /v1/batches
expect "batch: unknown field" 422/invalid-field -d '{"urls":["http://a/"],"x":1}' POST /v1/batches
expect "batch: empty list" 422/invalid-field -d '{"urls":[]}' POST /v1/batches
expect "batch: a number in urls" 422/invalid-field -d '{"urls":[1]}' POST /v1/batches
expect "batch: 11 URLs over max_batch 10" 413/batch-too-large \
  -d "$(js '{urls: [range(11) | "http://a/\(.)"]}')" POST /v1/batches
is "$(cx_json .limit)" 10 "batch-too-large names the limit"
expect "batch: body over max_request_bytes" 413/body-too-large \
  -d "$(js --arg b "$big" '{urls: [$b]}')" POST /v1/batches
expect "batch: text/plain" 415/unsupported-media-type -H 'Content-Type: text/plain' \
  -d '{"urls":["http://a/"]}' POST /v1/batches
CX_TOKEN=contract-slowpoke-token
expect "slowpoke: first batch within the rate" 200 -d "$(js --arg a "$(u 2 /p/1)" '{urls: [$a]}')" POST /v1/batches
expect "slowpoke: over its rate: 429" 429 -d "$(js --arg a "$(u 2 /p/2)" '{urls: [$a]}')" POST /v1/batches
is "$(cx_json '.items[0].reason')" over_rate_quota "429 names the quota"
cmp_ge "$(cx_hdr Retry-After)" 1 "429 has Retry-After"
CX_TOKEN=contract-crawler-token

# ---- gateway: results and ack ------------------------------------------------
got=0
for _ in 1 2 3 4 5; do
  cx -l "results: long-poll" GET '/v1/results?max=10&wait_ms=3000'
  got=$(cx_json '.results | length')
  [ "$got" -gt 0 ] && break
done
cmp_ge "$got" 1 "results arrive"
acks=$(jq -c '{deliveries: [.results[].delivery]}' "$CX_BODY")
expect "results: empty read without waiting" 200 GET '/v1/results?max=1000&wait_ms=0'
expect "results: max=0" 400/invalid-parameter GET '/v1/results?max=0'
expect "results: max=abc" 400/invalid-parameter GET '/v1/results?max=abc'
expect "results: wait_ms over max_wait_ms" 400/invalid-parameter GET '/v1/results?wait_ms=999999'
expect "results: wait_ms empty" 400/invalid-parameter GET '/v1/results?wait_ms='
expect "results: wait_ms +5" 400/invalid-parameter GET '/v1/results?wait_ms=%2B5'
expect "results: wait_ms ' 5'" 400/invalid-parameter GET '/v1/results?wait_ms=%205'
expect "results: wait_ms NUL" 400/invalid-parameter GET '/v1/results?wait_ms=%00'
expect "ack: the deliveries read" 200 -d "$acks" POST /v1/results/ack
cmp_ge "$(cx_json .acked)" 1 "ack counts them"
expect "ack: nothing" 200 -d '{"deliveries":[]}' POST /v1/results/ack
expect "ack: invalid JSON" 400/invalid-json -d '{' POST /v1/results/ack
expect "ack: not a delivery id" 422/invalid-field -d '{"deliveries":["x"]}' POST /v1/results/ack
expect "ack: deliveries missing" 422/invalid-field -d '{}' POST /v1/results/ack
expect "ack: unknown field" 422/invalid-field -d '{"deliveries":[],"y":2}' POST /v1/results/ack
expect "ack: text/plain" 415/unsupported-media-type -H 'Content-Type: text/plain' \
  -d '{"deliveries":[]}' POST /v1/results/ack
expect "ack: body over max_request_bytes" 413/body-too-large \
  -d "$(js --arg b "$big" '{deliveries: [$b]}')" POST /v1/results/ack

# ---- gateway: synchronous fetch ------------------------------------------------
expect "fetch: a page" 200 -d "$(js --arg a "$(u 3 /p/3)" '{url: $a, wait_ms: 5000}')" POST /v1/fetch
is "$(cx_json '.outcome + "/" + (.status|tostring)')" "ok/200" "fetch: ok 200"
expect "fetch: the same page from the cache" 200 \
  -d "$(js --arg a "$(u 3 /p/3)" '{url: $a, max_age_s: 3600, priority: 1}')" POST /v1/fetch
is "$(cx_json '.outcome + "/" + (.attempts|tostring) + "/" + (.age_s|type)')" "cached/0/number" \
  "fetch: cached without queueing, with its age"
is "$(cx_json .id)" "$(cx_hdr X-Request-Id)" "fetch: a cache answer's id is the HTTP request id"
expect "fetch: max_age_s 0" 200 \
  -d "$(js --arg a "$(u 3 /p/3)" '{url: $a, max_age_s: 0, wait_ms: 5000}')" POST /v1/fetch
expect "fetch: robots.txt disallows" 200 -d "$(js --arg a "$(u 3 /private/z)" '{url: $a}')" POST /v1/fetch
is "$(cx_json .outcome)" robots_disallowed "fetch: robots_disallowed"
expect "fetch: a redirect followed" 200 \
  -d "$(js --arg a "$(u 3 '/_b/redirect/301?to=/p/2')" '{url: $a, follow_redirects: 3}')" POST /v1/fetch
is "$(cx_json '.outcome + "/" + (.status|tostring) + "/" + (.redirects|length|tostring)')" "ok/200/1" \
  "fetch: the redirect's target, with the URL followed"
expect "fetch: follow_redirects over max_redirects" 422/invalid-field \
  -d '{"url":"http://a/","follow_redirects":99}' POST /v1/fetch
expect "fetch: a page that hangs, past wait_ms" 504/deadline-exceeded \
  -d "$(js --arg a "$(u 4 /_b/hang/1)" '{url: $a, wait_ms: 300}')" POST /v1/fetch
ok "504 names the request id" test -n "$(cx_json '.id // empty')"
expect "fetch: invalid JSON" 400/invalid-json -d 'nope' POST /v1/fetch
expect "fetch: invalid URL" 400/invalid-url -d '{"url":"http://a:99999/"}' POST /v1/fetch
expect "fetch: unsupported scheme" 400/unsupported-scheme -d '{"url":"gopher://a/"}' POST /v1/fetch
expect "fetch: URL too long" 400/url-too-long \
  -d "$(js --arg a "http://a/${big:0:3000}" '{url: $a}')" POST /v1/fetch
expect "fetch: wait_ms 0" 422/invalid-field -d '{"url":"http://a/","wait_ms":0}' POST /v1/fetch
expect "fetch: url missing" 422/invalid-field -d '{}' POST /v1/fetch
expect "fetch: url not a string" 422/invalid-field -d '{"url":5}' POST /v1/fetch
expect "fetch: url null" 422/invalid-field -d '{"url":null}' POST /v1/fetch
expect "fetch: priority null" 422/invalid-field -d '{"url":"http://a/","priority":null}' POST /v1/fetch
expect "fetch: text/plain" 415/unsupported-media-type -H 'Content-Type: text/plain' \
  -d '{"url":"http://a/"}' POST /v1/fetch
expect "fetch: body over max_request_bytes" 413/body-too-large \
  -d "$(js --arg b "$big" '{url: $b}')" POST /v1/fetch

# ---- gateway: sites, robots, stats, wrong routes ------------------------------
expect "site state" 200 GET /v1/sites/127.10.0.1
expect "site state of a site never seen" 200 GET /v1/sites/never.example
expect "site: upper case is not a site" 400/invalid-parameter GET /v1/sites/NOT_A_SITE
expect "site: a NUL is not cut off (%00 stays encoded)" 400/invalid-parameter GET /v1/sites/a%00b
expect "site: an encoded / is a /" 404/not-found GET /v1/sites/a%2Fb
expect "robots explain: disallowed" 200 GET "/v1/robots?url=$(u 1 /private/y)"
expect "robots explain: not fetched yet" 200 GET '/v1/robots?url=http://unseen.example/a'
expect "robots explain: url missing" 400/invalid-url GET /v1/robots
expect "robots explain: bad URL" 400/invalid-url GET '/v1/robots?url=http://a:99999/'
expect "page purge: a URL with %00" 200 DELETE '/v1/pages?url=http://a.example/x%00y'
is "$(cx_json .url)" "http://a.example/x%00y" "the URL purged is the one sent, %00 and all"
expect "page: a stored copy" 200 GET "/v1/pages?url=$(jq -rn --arg u "$(u 3 /p/3)" '$u|@uri')"
expect "page: no stored copy" 404/not-cached GET '/v1/pages?url=http://never.example/x'
expect "page: bad URL" 400/invalid-url GET '/v1/pages?url=http://a:99999/'
expect "page purge: absent" 200 DELETE '/v1/pages?url=http://never.example/x'
expect "pages without a key" 401/unauthorized -A GET '/v1/pages?url=http://a/'
expect "stats" 200 GET /v1/stats
expect "status page" 200 GET /status
expect "status page: one client" 200 GET /status?client=slowpoke
expect "status page: a bad client name" 400/invalid-parameter GET '/status?client=a%20b'
WORKER=(-A -H 'Authorization: Bearer contract-worker-token')
SCRAPER=(-A -H 'Authorization: Bearer contract-scraper-token')
expect "page purge: a crawler key" 403/forbidden "${WORKER[@]}" DELETE '/v1/pages?url=http://never.example/x'
expect "status page: a crawler key" 403/forbidden "${WORKER[@]}" GET /status
expect "status page: a crawler key, its own row" 200 "${WORKER[@]}" GET /status?client=worker
expect "client metrics" 200 GET /v1/metrics/clients
expect "client metrics: a metrics key" 200 "${SCRAPER[@]}" GET /v1/metrics/clients
expect "client metrics: a crawler key" 403/forbidden "${WORKER[@]}" GET /v1/metrics/clients
expect "client metrics without a key" 401/unauthorized -A GET /v1/metrics/clients
expect "stats: a metrics key" 200 "${SCRAPER[@]}" GET /v1/stats
expect "batches: a metrics key" 403/forbidden "${SCRAPER[@]}" -d '{"urls":["http://a/"]}' POST /v1/batches
expect "results: a metrics key" 403/forbidden "${SCRAPER[@]}" GET /v1/results
expect "ack: a metrics key" 403/forbidden "${SCRAPER[@]}" -d '{"deliveries":[]}' POST /v1/results/ack
expect "fetch: a metrics key" 403/forbidden "${SCRAPER[@]}" -d '{"url":"http://a/"}' POST /v1/fetch
expect "sites: a metrics key" 403/forbidden "${SCRAPER[@]}" GET /v1/sites/a
expect "robots: a metrics key" 403/forbidden "${SCRAPER[@]}" GET '/v1/robots?url=http://a/'
expect "page: a metrics key" 403/forbidden "${SCRAPER[@]}" GET '/v1/pages?url=http://a/'
expect "PUT /v1/batches: 405" 405/method-not-allowed -d '{}' PUT /v1/batches
expect "DELETE /v1/results: 405" 405/method-not-allowed DELETE /v1/results
expect "POST /v1/sites/x: 405" 405/method-not-allowed -d '{}' POST /v1/sites/x
expect "GET /v1/fetch: 405" 405/method-not-allowed GET /v1/fetch
expect "/v1/sites without a site: 404" 404/not-found GET /v1/sites/
expect "a fetcher route on the gateway: 404" 404/not-found -d '{}' POST /internal/v1/fetch

# ---- fetcher: fetch and resolve ------------------------------------------------
req() { js --arg u "$1" "{url: \$u} + ${2:-"{}"}"; }
expect "llfs fetch: JSON" 200 -s llfs -d "$(req "$(u 0 /p/2)")" POST /internal/v1/fetch
is "$(cx_json '.outcome + "/" + (.status|tostring)')" "ok/200" "llfs fetch: ok 200"
expect "llfs fetch: framed" 200 -s llfs -H 'Accept: application/x-wpfs-fetch' \
  -d "$(req "$(u 0 /p/2)" '{method: "GET", headers: {"X-Test": "1"}, timeout_ms: 5000}')" POST /internal/v1/fetch
expect "llfs fetch: HEAD" 200 -s llfs -d "$(req "$(u 0 /)" '{method: "HEAD"}')" POST /internal/v1/fetch
expect "llfs fetch: a redirect, not followed" 200 -s llfs \
  -d "$(req "$(u 0 '/_b/redirect/302?to=/p/1')")" POST /internal/v1/fetch
expect "llfs fetch: a private address" 200 -s llfs -d "$(req http://10.0.0.1/)" POST /internal/v1/fetch
is "$(cx_json .outcome)" blocked_address "llfs fetch: blocked_address"
expect "llfs fetch: a closed port" 200 -s llfs -d "$(req "http://127.0.0.1:$(freeport)/")" POST /internal/v1/fetch
expect "llfs fetch: invalid JSON" 400/invalid-json -s llfs -d '{"url"' POST /internal/v1/fetch
expect "llfs fetch: invalid URL" 400/invalid-url -s llfs -d '{"url":"http://a:99999/"}' POST /internal/v1/fetch
expect "llfs fetch: unsupported scheme" 400/unsupported-scheme -s llfs -d '{"url":"ftp://a/"}' POST /internal/v1/fetch
expect "llfs fetch: URL too long" 400/url-too-long -s llfs \
  -d "$(req "http://a/${big:0:3000}")" POST /internal/v1/fetch
expect "llfs fetch: timeout_ms 0" 422/invalid-field -s llfs -d '{"url":"http://a/","timeout_ms":0}' POST /internal/v1/fetch
expect "llfs fetch: unknown field" 422/invalid-field -s llfs -d '{"url":"http://a/","x":1}' POST /internal/v1/fetch
expect "llfs fetch: a Host header" 422/invalid-field -s llfs \
  -d '{"url":"http://a/","headers":{"Host":"b"}}' POST /internal/v1/fetch
expect "llfs fetch: pin_address not an address" 422/invalid-field -s llfs \
  -d '{"url":"http://a/","pin_address":"x"}' POST /internal/v1/fetch
expect "llfs fetch: text/plain" 415/unsupported-media-type -s llfs -H 'Content-Type: text/plain' \
  -d '{"url":"http://a/"}' POST /internal/v1/fetch
expect "llfs fetch: body over max_request_bytes" 413/body-too-large -s llfs \
  -d "$(js --arg b "$big" '{url: $b}')" POST /internal/v1/fetch
expect "llfs fetch: GET is 405" 405/method-not-allowed -s llfs GET /internal/v1/fetch
expect "llfs: a gateway route is 404" 404/not-found -s llfs GET /v1/stats
expect "llfs resolve: IPv4 literal" 200 -s llfs GET '/internal/v1/resolve?host=127.0.0.1'
expect "llfs resolve: private literal" 200 -s llfs GET '/internal/v1/resolve?host=10.1.2.3'
is "$(cx_json '.addresses[0].allowed')" false "resolve: the guard refuses a private address"
expect "llfs resolve: IPv6 literal" 200 -s llfs GET '/internal/v1/resolve?host=%5B::1%5D'
expect "llfs resolve: host missing" 400/invalid-parameter -s llfs GET /internal/v1/resolve
expect "llfs resolve: a port" 400/invalid-parameter -s llfs GET '/internal/v1/resolve?host=a.test:80'
expect "llfs resolve: POST is 405" 405/method-not-allowed -s llfs -d '{}' POST /internal/v1/resolve

# ---- fetcher: overloaded, then stopping ------------------------------------------
start_llfs --max-in-flight 1 --max-queue 0 --shutdown-grace-ms 5000
LLFS2_PID=$LLFS_PID
curl -s -o /dev/null -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" \
  --data-binary "$(req "$(u 4 /_b/hang/2)" '{timeout_ms: 8000}')" &
hang=$!
ok "a hanging fetch is in flight" \
  wait_for 5 bash -c "curl -s $LLFS_URL/metrics | grep -qx 'llfs_fetches_in_flight 1'"
expect "llfs fetch: overloaded" 503/overloaded -s llfs -d "$(req "$(u 0 /)")" POST /internal/v1/fetch
is "$(cx_hdr Retry-After)" 1 "overloaded: Retry-After"
mkdir -p "$CX_DIR/ka"
node "$WPFS_ROOT/tests/contract/keepalive.mjs" llfs "$LLFS_URL" "$CX_DIR/ka" \
  "GET /readyz" "POST /internal/v1/fetch $(req "$(u 0 /)")" >"$CX_DIR/ka.jsonl" 2>"$CX_DIR/ka.err" &
ka=$!
ok "kept-alive connection open" wait_for 10 test -e "$CX_DIR/ka/ready"
kill -TERM "$LLFS2_PID"
# The listener closes when the stop begins: new connections are refused.
ok "the stopping fetcher refuses new connections" \
  wait_for 5 bash -c "! curl -s -o /dev/null $LLFS_URL/healthz"
touch "$CX_DIR/ka/go"
wait "$ka"
is "$(jq -r .status "$CX_DIR/ka.jsonl" | tr '\n' ' ')" "200 503 503 " \
  "a stopping fetcher answers its open connection: not ready, then 503 shutting-down"
is "$(jq -r '.resp_body_file' "$CX_DIR/ka.jsonl" | tail -n +2 | xargs -n1 jq -r .type | tr '\n' ' ')" \
  "urn:wpfs:problem:not-ready urn:wpfs:problem:shutting-down " \
  "stopping: problem types"
ok "shutting-down closes the connection (the client's next request goes elsewhere)" \
  grep -qix 'connection: close.\?' "$(jq -r '.resp_head_file' "$CX_DIR/ka.jsonl" | tail -1)"
while IFS= read -r line; do cx_record "$line"; done <"$CX_DIR/ka.jsonl"
kill "$hang" 2>/dev/null
LLFS_URL=$LLFS_MAIN

# ---- gateway without Redis -------------------------------------------------------
kill "$REDIS_PID"
ok "redis gone: the gateway knows" \
  wait_for 20 bash -c "curl -s -m 2 $HLFS_URL/metrics | grep -qx 'hlfs_redis_up 0'" ||
  echo "# hlfs_redis_up: $(curl -s -m 2 "$HLFS_URL/metrics" | grep '^hlfs_redis_up')"
expect "readyz without Redis: still ready (503s answer what cannot be served)" 200 GET /readyz
expect "batch without Redis" 503/store-unavailable -d "$(js --arg a "$(u 0 /q)" '{urls: [$a]}')" POST /v1/batches
expect "results without Redis" 503/store-unavailable GET /v1/results
# An ack whose store call cannot be sent answers 200 {"acked": 0} today;
# 503 store-unavailable is what the contract promises (reported). Recorded
# and validated, not asserted.
cx -l "ack without Redis" -d '{"deliveries":["0:1-0"]}' POST /v1/results/ack
expect "fetch without Redis" 503/store-unavailable -d "$(js --arg a "$(u 0 /q)" '{url: $a}')" POST /v1/fetch
expect "site state without Redis" 503/store-unavailable GET /v1/sites/127.10.0.1
expect "robots explain without Redis" 503/store-unavailable GET "/v1/robots?url=$(u 0 /)"
expect "stats without Redis" 200 GET /v1/stats
expect "status page without Redis" 503/store-unavailable GET /status

# ---- every answer against the contract --------------------------------------------
cx_validate --coverage
seen=$(sed -n 's/^# problem types seen: //p' "$CX_DIR/validate.out")
for t in invalid-json invalid-field invalid-url unsupported-scheme url-too-long body-too-large \
         unsupported-media-type not-found method-not-allowed overloaded shutting-down \
         not-ready unauthorized batch-too-large invalid-parameter store-unavailable \
         deadline-exceeded; do
  [[ " $seen " == *" $t "* ]] && pass "problem type $t exercised" || fail "problem type $t exercised"
done

# ---- the validator notices a contract that is wrong ---------------------------------
# The same answers against deliberately broken copies of openapi.yaml: each
# must fail, on the exchange the breakage concerns.
neg() {  # MUTATION GREP-PATTERN DESCRIPTION
  node "$WPFS_ROOT/tests/contract/mutate.mjs" "$WPFS_ROOT/openapi.yaml" "$1" "$T_DIR/bad-$1.yaml"
  node "$WPFS_ROOT/tests/contract/validate.mjs" --spec "$T_DIR/bad-$1.yaml" \
    "$CX_DIR/exchanges.jsonl" >"$T_DIR/bad-$1.out" 2>&1
  local rc=$?
  is "$rc/$(grep '^FAIL' "$T_DIR/bad-$1.out" | grep -c -- "$2")" "1/$(grep -c '^FAIL' "$T_DIR/bad-$1.out")" \
    "broken contract ($1): $3"
  grep -q '^FAIL' "$T_DIR/bad-$1.out" || fail "broken contract ($1): nothing failed"
}
neg drop-problem-type 'not-found' "every 404 answer fails"
neg require-field 'no_such_member' "site state answers fail"
neg drop-status 'status 504 is not declared' "the 504 answer fails"
neg wrong-media-type 'media type "application/json" not declared' "healthz answers fail"
neg narrow-request 'the contract refuses' "the fetch sent with headers fails"
done_testing
