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
api_cases cx_case <<'CASES'
# STATUS TYPE FIELD | LABEL | [cx options] METHOD PATH (api_cases, tests/lib.sh)
200 - - | hlfs healthz | -s hlfs GET /healthz
200 - - | hlfs readyz | -s hlfs GET /readyz
200 - - | hlfs metrics | -s hlfs GET /metrics
404 not-found - | hlfs unknown path: 404 | -s hlfs GET /nope
200 - - | llfs healthz | -s llfs GET /healthz
200 - - | llfs readyz | -s llfs GET /readyz
200 - - | llfs metrics | -s llfs GET /metrics
404 not-found - | llfs unknown path: 404 | -s llfs GET /nope
CASES

# ---- gateway: keys ------------------------------------------------------------
api_cases cx_case <<'CASES'
401 unauthorized - | batches without a key | -A -d '{"urls":["http://a/"]}' POST /v1/batches
401 unauthorized - | results with an unknown key | -A -H 'Authorization: Bearer nope-nope-nope' \
    GET /v1/results
401 unauthorized - | ack without a key | -A -d '{"deliveries":[]}' POST /v1/results/ack
401 unauthorized - | fetch without a key | -A -d '{"url":"http://a/"}' POST /v1/fetch
401 unauthorized - | sites without a key | -A GET /v1/sites/a
401 unauthorized - | robots without a key | -A GET '/v1/robots?url=http://a/'
401 unauthorized - | stats without a key | -A GET /v1/stats
401 unauthorized - | status page without a key | -A GET /status
CASES

# ---- gateway: batches --------------------------------------------------------
big=$(printf 'x%.0s' $(seq 9000))
body=$(js --arg a "$(u 0 /)" --arg b "$(u 0 /p/1)" --arg c "$(u 1 /private/x)" \
  '{urls: [$a, {url: $b, priority: 7, max_age_s: 0}, "ftp://x/", "http://a:99999/", $c, $a],
    priority: 3}')
api_cases cx_case <<'CASES'
200 - - | batch: per-URL answers | -d "$body" POST /v1/batches
= accepted,accepted,rejected,rejected,accepted,duplicate | batch: statuses in order | \
    [.items[].status] | join(",")
400 invalid-json - | batch: invalid JSON | -d '{"urls":' POST /v1/batches
400 invalid-json - | batch: JSON but not an object | -d '[1]' POST /v1/batches
422 invalid-field - | batch: priority out of range | \
    -d '{"urls":[{"url":"http://a/","priority":9}]}' POST /v1/batches
422 invalid-field - | batch: unknown field | -d '{"urls":["http://a/"],"x":1}' POST /v1/batches
422 invalid-field - | batch: empty list | -d '{"urls":[]}' POST /v1/batches
422 invalid-field - | batch: a number in urls | -d '{"urls":[1]}' POST /v1/batches
413 batch-too-large - | batch: 11 URLs over max_batch 10 | \
    -d "$(js '{urls: [range(11) | "http://a/\(.)"]}')" POST /v1/batches
= 10 | batch-too-large names the limit | .limit
413 body-too-large - | batch: body over max_request_bytes | \
    -d "$(js --arg b "$big" '{urls: [$b]}')" POST /v1/batches
415 unsupported-media-type - | batch: text/plain | -H 'Content-Type: text/plain' \
    -d '{"urls":["http://a/"]}' POST /v1/batches
CASES
CX_TOKEN=contract-slowpoke-token
api_cases cx_case <<'CASES'
200 - - | slowpoke: first batch within the rate | -d "$(js --arg a "$(u 2 /p/1)" '{urls: [$a]}')" \
    POST /v1/batches
429 - - | slowpoke: over its rate: 429 | -d "$(js --arg a "$(u 2 /p/2)" '{urls: [$a]}')" \
    POST /v1/batches
= over_rate_quota | 429 names the quota | .items[0].reason
CASES
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
api_cases cx_case <<'CASES'
200 - - | results: empty read without waiting | GET '/v1/results?max=1000&wait_ms=0'
400 invalid-parameter - | results: max=0 | GET '/v1/results?max=0'
400 invalid-parameter - | results: max=abc | GET '/v1/results?max=abc'
400 invalid-parameter - | results: wait_ms over max_wait_ms | GET '/v1/results?wait_ms=999999'
400 invalid-parameter - | results: wait_ms empty | GET '/v1/results?wait_ms='
400 invalid-parameter - | results: wait_ms +5 | GET '/v1/results?wait_ms=%2B5'
400 invalid-parameter - | results: wait_ms ' 5' | GET '/v1/results?wait_ms=%205'
400 invalid-parameter - | results: wait_ms NUL | GET '/v1/results?wait_ms=%00'
200 - - | ack: the deliveries read | -d "$acks" POST /v1/results/ack
CASES
cmp_ge "$(cx_json .acked)" 1 "ack counts them"
api_cases cx_case <<'CASES'
200 - - | ack: nothing | -d '{"deliveries":[]}' POST /v1/results/ack
400 invalid-json - | ack: invalid JSON | -d '{' POST /v1/results/ack
422 invalid-field - | ack: not a delivery id | -d '{"deliveries":["x"]}' POST /v1/results/ack
422 invalid-field - | ack: deliveries missing | -d '{}' POST /v1/results/ack
422 invalid-field - | ack: unknown field | -d '{"deliveries":[],"y":2}' POST /v1/results/ack
415 unsupported-media-type - | ack: text/plain | -H 'Content-Type: text/plain' \
    -d '{"deliveries":[]}' POST /v1/results/ack
413 body-too-large - | ack: body over max_request_bytes | \
    -d "$(js --arg b "$big" '{deliveries: [$b]}')" POST /v1/results/ack
CASES

# ---- gateway: synchronous fetch ------------------------------------------------
api_cases cx_case <<'CASES'
200 - - | fetch: a page | -d "$(js --arg a "$(u 3 /p/3)" '{url: $a, wait_ms: 5000}')" POST /v1/fetch
= ok/200 | fetch: ok 200 | .outcome + "/" + (.status|tostring)
200 - - | fetch: the same page from the cache | \
    -d "$(js --arg a "$(u 3 /p/3)" '{url: $a, max_age_s: 3600, priority: 1}')" POST /v1/fetch
= cached/0/number | fetch: cached without queueing, with its age | \
    .outcome + "/" + (.attempts|tostring) + "/" + (.age_s|type)
CASES
is "$(cx_json .id)" "$(cx_hdr X-Request-Id)" "fetch: a cache answer's id is the HTTP request id"
api_cases cx_case <<'CASES'
200 - - | fetch: max_age_s 0 | \
    -d "$(js --arg a "$(u 3 /p/3)" '{url: $a, max_age_s: 0, wait_ms: 5000}')" POST /v1/fetch
200 - - | fetch: robots.txt disallows | -d "$(js --arg a "$(u 3 /private/z)" '{url: $a}')" \
    POST /v1/fetch
= robots_disallowed | fetch: robots_disallowed | .outcome
200 - - | fetch: a redirect followed | \
    -d "$(js --arg a "$(u 3 '/_b/redirect/301?to=/p/2')" '{url: $a, follow_redirects: 3}')" \
    POST /v1/fetch
= ok/200/1 | fetch: the redirect's target, with the URL followed | \
    .outcome + "/" + (.status|tostring) + "/" + (.redirects|length|tostring)
422 invalid-field - | fetch: follow_redirects over max_redirects | \
    -d '{"url":"http://a/","follow_redirects":99}' POST /v1/fetch
504 deadline-exceeded - | fetch: a page that hangs, past wait_ms | \
    -d "$(js --arg a "$(u 4 /_b/hang/1)" '{url: $a, wait_ms: 300}')" POST /v1/fetch
CASES
ok "504 names the request id" test -n "$(cx_json '.id // empty')"
api_cases cx_case <<'CASES'
400 invalid-json - | fetch: invalid JSON | -d 'nope' POST /v1/fetch
400 invalid-url - | fetch: invalid URL | -d '{"url":"http://a:99999/"}' POST /v1/fetch
400 unsupported-scheme - | fetch: unsupported scheme | -d '{"url":"gopher://a/"}' POST /v1/fetch
400 url-too-long - | fetch: URL too long | -d "$(js --arg a "http://a/${big:0:3000}" '{url: $a}')" \
    POST /v1/fetch
422 invalid-field - | fetch: wait_ms 0 | -d '{"url":"http://a/","wait_ms":0}' POST /v1/fetch
422 invalid-field - | fetch: url missing | -d '{}' POST /v1/fetch
422 invalid-field - | fetch: url not a string | -d '{"url":5}' POST /v1/fetch
422 invalid-field - | fetch: url null | -d '{"url":null}' POST /v1/fetch
422 invalid-field - | fetch: priority null | -d '{"url":"http://a/","priority":null}' POST /v1/fetch
415 unsupported-media-type - | fetch: text/plain | -H 'Content-Type: text/plain' \
    -d '{"url":"http://a/"}' POST /v1/fetch
413 body-too-large - | fetch: body over max_request_bytes | -d "$(js --arg b "$big" '{url: $b}')" \
    POST /v1/fetch
CASES

# ---- gateway: sites, robots, stats, wrong routes ------------------------------
api_cases cx_case <<'CASES'
200 - - | site state | GET /v1/sites/127.10.0.1
200 - - | site state of a site never seen | GET /v1/sites/never.example
400 invalid-parameter - | site: upper case is not a site | GET /v1/sites/NOT_A_SITE
400 invalid-parameter - | site: a NUL is not cut off (%00 stays encoded) | GET /v1/sites/a%00b
404 not-found - | site: an encoded / is a / | GET /v1/sites/a%2Fb
200 - - | robots explain: disallowed | GET "/v1/robots?url=$(u 1 /private/y)"
200 - - | robots explain: not fetched yet | GET '/v1/robots?url=http://unseen.example/a'
400 invalid-url - | robots explain: url missing | GET /v1/robots
400 invalid-url - | robots explain: bad URL | GET '/v1/robots?url=http://a:99999/'
200 - - | page purge: a URL with %00 | DELETE '/v1/pages?url=http://a.example/x%00y'
= http://a.example/x%00y | the URL purged is the one sent, %00 and all | .url
200 - - | page: a stored copy | GET "/v1/pages?url=$(jq -rn --arg u "$(u 3 /p/3)" '$u|@uri')"
404 not-cached - | page: no stored copy | GET '/v1/pages?url=http://never.example/x'
400 invalid-url - | page: bad URL | GET '/v1/pages?url=http://a:99999/'
200 - - | page purge: absent | DELETE '/v1/pages?url=http://never.example/x'
401 unauthorized - | pages without a key | -A GET '/v1/pages?url=http://a/'
200 - - | stats | GET /v1/stats
200 - - | status page | GET /status
200 - - | status page: one client | GET /status?client=slowpoke
400 invalid-parameter - | status page: a bad client name | GET '/status?client=a%20b'
CASES
WORKER=(-A -H 'Authorization: Bearer contract-worker-token')
SCRAPER=(-A -H 'Authorization: Bearer contract-scraper-token')
api_cases cx_case <<'CASES'
403 forbidden - | page purge: a crawler key | "${WORKER[@]}" \
    DELETE '/v1/pages?url=http://never.example/x'
403 forbidden - | status page: a crawler key | "${WORKER[@]}" GET /status
200 - - | status page: a crawler key, its own row | "${WORKER[@]}" GET /status?client=worker
200 - - | client metrics | GET /v1/metrics/clients
200 - - | client metrics: a metrics key | "${SCRAPER[@]}" GET /v1/metrics/clients
403 forbidden - | client metrics: a crawler key | "${WORKER[@]}" GET /v1/metrics/clients
401 unauthorized - | client metrics without a key | -A GET /v1/metrics/clients
200 - - | stats: a metrics key | "${SCRAPER[@]}" GET /v1/stats
403 forbidden - | batches: a metrics key | "${SCRAPER[@]}" -d '{"urls":["http://a/"]}' \
    POST /v1/batches
403 forbidden - | results: a metrics key | "${SCRAPER[@]}" GET /v1/results
403 forbidden - | ack: a metrics key | "${SCRAPER[@]}" -d '{"deliveries":[]}' POST /v1/results/ack
403 forbidden - | fetch: a metrics key | "${SCRAPER[@]}" -d '{"url":"http://a/"}' POST /v1/fetch
403 forbidden - | sites: a metrics key | "${SCRAPER[@]}" GET /v1/sites/a
403 forbidden - | robots: a metrics key | "${SCRAPER[@]}" GET '/v1/robots?url=http://a/'
403 forbidden - | page: a metrics key | "${SCRAPER[@]}" GET '/v1/pages?url=http://a/'
405 method-not-allowed - | PUT /v1/batches: 405 | -d '{}' PUT /v1/batches
405 method-not-allowed - | DELETE /v1/results: 405 | DELETE /v1/results
405 method-not-allowed - | POST /v1/sites/x: 405 | -d '{}' POST /v1/sites/x
405 method-not-allowed - | GET /v1/fetch: 405 | GET /v1/fetch
404 not-found - | /v1/sites without a site: 404 | GET /v1/sites/
404 not-found - | a fetcher route on the gateway: 404 | -d '{}' POST /internal/v1/fetch
CASES

# ---- fetcher: fetch and resolve ------------------------------------------------
req() { js --arg u "$1" "{url: \$u} + ${2:-"{}"}"; }
api_cases cx_case <<'CASES'
200 - - | llfs fetch: JSON | -s llfs -d "$(req "$(u 0 /p/2)")" POST /internal/v1/fetch
= ok/200 | llfs fetch: ok 200 | .outcome + "/" + (.status|tostring)
200 - - | llfs fetch: framed | -s llfs -H 'Accept: application/x-wpfs-fetch' \
    -d "$(req "$(u 0 /p/2)" '{method: "GET", headers: {"X-Test": "1"}, timeout_ms: 5000}')" \
    POST /internal/v1/fetch
200 - - | llfs fetch: HEAD | -s llfs -d "$(req "$(u 0 /)" '{method: "HEAD"}')" \
    POST /internal/v1/fetch
200 - - | llfs fetch: a redirect, not followed | -s llfs \
    -d "$(req "$(u 0 '/_b/redirect/302?to=/p/1')")" POST /internal/v1/fetch
200 - - | llfs fetch: a private address | -s llfs -d "$(req http://10.0.0.1/)" \
    POST /internal/v1/fetch
= blocked_address | llfs fetch: blocked_address | .outcome
200 - - | llfs fetch: a closed port | -s llfs -d "$(req "http://127.0.0.1:$(freeport)/")" \
    POST /internal/v1/fetch
400 invalid-json - | llfs fetch: invalid JSON | -s llfs -d '{"url"' POST /internal/v1/fetch
400 invalid-url - | llfs fetch: invalid URL | -s llfs -d '{"url":"http://a:99999/"}' \
    POST /internal/v1/fetch
400 unsupported-scheme - | llfs fetch: unsupported scheme | -s llfs -d '{"url":"ftp://a/"}' \
    POST /internal/v1/fetch
400 url-too-long - | llfs fetch: URL too long | -s llfs -d "$(req "http://a/${big:0:3000}")" \
    POST /internal/v1/fetch
422 invalid-field - | llfs fetch: timeout_ms 0 | -s llfs -d '{"url":"http://a/","timeout_ms":0}' \
    POST /internal/v1/fetch
422 invalid-field - | llfs fetch: unknown field | -s llfs -d '{"url":"http://a/","x":1}' \
    POST /internal/v1/fetch
422 invalid-field - | llfs fetch: a Host header | -s llfs \
    -d '{"url":"http://a/","headers":{"Host":"b"}}' POST /internal/v1/fetch
422 invalid-field - | llfs fetch: pin_address not an address | -s llfs \
    -d '{"url":"http://a/","pin_address":"x"}' POST /internal/v1/fetch
415 unsupported-media-type - | llfs fetch: text/plain | -s llfs -H 'Content-Type: text/plain' \
    -d '{"url":"http://a/"}' POST /internal/v1/fetch
413 body-too-large - | llfs fetch: body over max_request_bytes | -s llfs \
    -d "$(js --arg b "$big" '{url: $b}')" POST /internal/v1/fetch
405 method-not-allowed - | llfs fetch: GET is 405 | -s llfs GET /internal/v1/fetch
404 not-found - | llfs: a gateway route is 404 | -s llfs GET /v1/stats
200 - - | llfs resolve: IPv4 literal | -s llfs GET '/internal/v1/resolve?host=127.0.0.1'
200 - - | llfs resolve: private literal | -s llfs GET '/internal/v1/resolve?host=10.1.2.3'
= false | resolve: the guard refuses a private address | .addresses[0].allowed
200 - - | llfs resolve: IPv6 literal | -s llfs GET '/internal/v1/resolve?host=%5B::1%5D'
400 invalid-parameter - | llfs resolve: host missing | -s llfs GET /internal/v1/resolve
400 invalid-parameter - | llfs resolve: a port | -s llfs GET '/internal/v1/resolve?host=a.test:80'
405 method-not-allowed - | llfs resolve: POST is 405 | -s llfs -d '{}' POST /internal/v1/resolve
CASES

# ---- fetcher: overloaded, then stopping ------------------------------------------
start_llfs --max-in-flight 1 --max-queue 0 --shutdown-grace-ms 5000
LLFS2_PID=$LLFS_PID
curl -s -o /dev/null -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" \
  --data-binary "$(req "$(u 4 /_b/hang/2)" '{timeout_ms: 8000}')" &
hang=$!
ok "a hanging fetch is in flight" \
  wait_for 5 bash -c "curl -s $LLFS_URL/metrics | grep -qx 'llfs_fetches_in_flight 1'"
api_cases cx_case <<'CASES'
503 overloaded - | llfs fetch: overloaded | -s llfs -d "$(req "$(u 0 /)")" POST /internal/v1/fetch
CASES
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
api_cases cx_case <<'CASES'
200 - - | readyz without Redis: still ready (503s answer what cannot be served) | GET /readyz
503 store-unavailable - | batch without Redis | -d "$(js --arg a "$(u 0 /q)" '{urls: [$a]}')" \
    POST /v1/batches
503 store-unavailable - | results without Redis | GET /v1/results
CASES
# An ack whose store call cannot be sent answers 200 {"acked": 0} today;
# 503 store-unavailable is what the contract promises (reported). Recorded
# and validated, not asserted.
cx -l "ack without Redis" -d '{"deliveries":["0:1-0"]}' POST /v1/results/ack
api_cases cx_case <<'CASES'
503 store-unavailable - | fetch without Redis | -d "$(js --arg a "$(u 0 /q)" '{url: $a}')" \
    POST /v1/fetch
503 store-unavailable - | site state without Redis | GET /v1/sites/127.10.0.1
503 store-unavailable - | robots explain without Redis | GET "/v1/robots?url=$(u 0 /)"
200 - - | stats without Redis | GET /v1/stats
503 store-unavailable - | status page without Redis | GET /status
CASES

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
