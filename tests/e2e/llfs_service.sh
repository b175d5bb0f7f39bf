#!/bin/bash
# timeout: 120
# The LLFS REST service end to end (bin/llfs against testweb and dnsmasq):
# both answer representations byte for byte, every validation error, the
# address guard through DNS, redirects, request ids in answers and logs,
# /metrics counters, GET /internal/v1/resolve, and overload.
. "$WPFS_ROOT/tests/lib.sh"

start_dnsmasq 20
start_testweb --generate sites=20
start_llfs --max-request-bytes 4096 --log-level info
MAIN_PID=$LLFS_PID

# lf METHOD PATH [BODY [CURL ARGS...]]: answer in $T_DIR/lf.body, head in
# $T_DIR/lf.hdr, status in LF_STATUS (and in API_*, for api_cases).
lf() {
  local method=$1 path=$2 body=${3:-} args
  shift $(($# < 3 ? $# : 3))
  args=(-s -X "$method" -D "$T_DIR/lf.hdr" -o "$T_DIR/lf.body" -w '%{http_code}' -H "$LLFS_AUTH")
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  LF_STATUS=$(curl "${args[@]}" "$@" "$LLFS_URL$path")
  API_STATUS=$LF_STATUS API_BODY=$T_DIR/lf.body API_HEAD=$T_DIR/lf.hdr
}
lf_hdr() { grep -i "^$1:" "$T_DIR/lf.hdr" | head -1 | cut -d' ' -f2- | tr -d '\r'; }
lf_json() { jq -r "$1" "$T_DIR/lf.body"; }
req() { jq -cn --arg u "$1" "{url: \$u} + ${2:-"{}"}"; }
# metric 'name{labels}': one sample of /metrics (0 when absent).
metric() {
  curl -s "$LLFS_URL/metrics" | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}

U0=$(tw_url site0.test /)
# ---- the framed answer: meta line, newline, the body as testweb serves it
tw_curl site0.test / -s -o "$T_DIR/expect0"
lf POST /internal/v1/fetch "$(req "$U0")" -H 'Accept: application/x-wpfs-fetch'
is "$LF_STATUS" 200 "framed: 200"
is "$(lf_hdr Content-Type)" application/x-wpfs-fetch "framed: content type"
mlen=$(lf_hdr Wpfs-Meta-Length)
head -c "$mlen" "$T_DIR/lf.body" >"$T_DIR/meta0"
is "$(jq -c 'type' "$T_DIR/meta0")" '"object"' \
  "framed: Wpfs-Meta-Length covers exactly one JSON object"
is "$(tail -c +$((mlen + 1)) "$T_DIR/lf.body" | head -c 1 | od -An -c | tr -d ' ')" '\n' \
  "framed: a newline after the meta line"
tail -c +$((mlen + 2)) "$T_DIR/lf.body" >"$T_DIR/body0"
ok "framed: body bytes identical to what testweb serves" cmp -s "$T_DIR/body0" "$T_DIR/expect0"
is "$(jq -r .body_bytes "$T_DIR/meta0")" "$(stat -c %s "$T_DIR/expect0")" "framed: body_bytes"
is "$(jq -r '.outcome + " " + (.status|tostring) + " " + .url' "$T_DIR/meta0")" "ok 200 $U0" \
  "framed: outcome, status, canonical url"
is "$(jq -r '[.headers[] | select(.[0] == "ETag")] | length' "$T_DIR/meta0")" 1 \
  "framed: response headers as [name, value] pairs"
is "$(jq -c '.timings_us | keys' "$T_DIR/meta0")" \
  '["connect","dns","first_byte","hold","queue","tls","total"]' "framed: timings_us has every phase"

# A larger body (several reads) through the framed answer too.
UB=$(tw_url site1.test '/_b/body/big?size=300000')
tw_curl site1.test '/_b/body/big?size=300000' -s -o "$T_DIR/expect1"
lf POST /internal/v1/fetch "$(req "$UB")" -H 'Accept: application/x-wpfs-fetch'
mlen=$(lf_hdr Wpfs-Meta-Length)
tail -c +$((mlen + 2)) "$T_DIR/lf.body" >"$T_DIR/body1"
ok "framed: 300 kB body identical" cmp -s "$T_DIR/body1" "$T_DIR/expect1"

# ---- the JSON answer: the same page with body_base64
lf POST /internal/v1/fetch "$(req "$U0")"
is "$LF_STATUS" 200 "json: 200"
is "$(lf_hdr Content-Type)" application/json "json: content type (the default)"
is "$(lf_hdr Wpfs-Meta-Length)" "" "json: no Wpfs-Meta-Length"
lf_json .body_base64 | base64 -d >"$T_DIR/body0j"
ok "json: body_base64 decodes to the bytes testweb serves" cmp -s "$T_DIR/body0j" "$T_DIR/expect0"
is "$(lf_json .reused_connection)" true "json: second fetch of the site reused the connection"

# ---- validation: every refusal names what is wrong
long=$(head -c 2100 /dev/zero | tr '\0' a) pad=$(head -c 5000 /dev/zero | tr '\0' x)
api_cases lf <<'CASES'
# STATUS TYPE FIELD | LABEL | lf METHOD PATH [BODY [CURL ARGS]] (api_cases, tests/lib.sh)
400 invalid-json - | truncated JSON | POST /internal/v1/fetch '{"url": "http://a/",'
= number,number | invalid-json: line and column | [.line, .column] | map(type) | join(",")
= 1 | invalid-json: line 1 | .line
- - - | invalid-json, line 3 | \
    POST /internal/v1/fetch $'{\n  "url": "http://a/",\n  "timeout_ms": 5,,\n}'
= 3:19 | invalid-json: line 3 column 19 (the second comma) | "\(.line):\(.column)"
400 invalid-json - | a JSON array instead of an object | POST /internal/v1/fetch '["http://a/"]'
422 invalid-field timeout_ms | timeout_ms as a string | \
    POST /internal/v1/fetch "$(req "$U0" '{timeout_ms: "soon"}')"
- - - | timeout_ms over the configured maximum | \
    POST /internal/v1/fetch "$(req "$U0" '{timeout_ms: 99999999}')"
= 422 timeout_ms | timeout_ms over the configured maximum: 422 | "\(.status) \(.field)"
422 invalid-field headers.Host | Host header | \
    POST /internal/v1/fetch "$(req "$U0" '{headers: {Host: "evil.test"}}')"
422 invalid-field folow_redirects | unknown field | \
    POST /internal/v1/fetch "$(req "$U0" '{folow_redirects: true}')"
- - - | missing url | POST /internal/v1/fetch '{}'
= 422 url is required | missing url | "\(.status) \(.field) \(.reason)"
400 url-too-long - | URL over 2048 bytes | \
    POST /internal/v1/fetch "$(req "http://site0.test/$long")"
400 unsupported-scheme - | ftp URL | POST /internal/v1/fetch "$(req ftp://site0.test/file)"
400 invalid-url - | port 99999 | POST /internal/v1/fetch "$(req 'http://site0.test:99999/')"
= bad_port url | invalid-url: url_error bad_port, field url | "\(.url_error) \(.field)"
413 body-too-large - | body over --max-request-bytes 4096 | \
    POST /internal/v1/fetch "$(req "$U0" "{pad: \"$pad\"}")"
415 unsupported-media-type - | text/plain body | \
    POST /internal/v1/fetch '' -H 'Content-Type: text/plain' --data-binary "$(req "$U0")"
404 not-found - | unknown path | GET /internal/v1/nothing
405 method-not-allowed - | GET on the fetch route | GET /internal/v1/fetch
CASES
is "$(lf_hdr Allow)" POST "405: Allow: POST"
lf DELETE /internal/v1/resolve
is "$LF_STATUS $(lf_hdr Allow)" "405 GET" "405 on resolve: Allow: GET"
is "$(metric 'llfs_fetches_total{outcome="bad_url"}')" 0 "refused requests never reach the engine"

# ---- the address guard through DNS, with the request id in answer and log
opened=$(metric llfs_connections_opened_total)
lf POST /internal/v1/fetch "$(req "$(tw_url private.test /)")" -H 'X-Request-Id: e2e-private-1'
is "$(lf_json '.outcome + " " + .blocked_range + " " + .address')" \
  "blocked_address private 10.0.0.1" "private.test (10.0.0.1): blocked_address, range private"
is "$(lf_hdr X-Request-Id)" e2e-private-1 "X-Request-Id echoed"
is "$(metric llfs_connections_opened_total)" "$opened" "blocked: no connection opened"
is "$(metric 'llfs_blocked_addresses_total{range="private"}')" 1 "blocked range counted"
ok "the request id is in llfs's JSON log line of the refusal" \
  wait_for 5 bash -c "grep -F '\"req\":\"e2e-private-1\"' '$T_DIR/llfs.log' | jq -e 'select(.level == \"info\")'"
lf POST /internal/v1/fetch "$(req "$(tw_url metadata.test /)")"
is "$(lf_json .blocked_range)" cloud_metadata "metadata.test: cloud_metadata"
lf POST /internal/v1/fetch "$(req "$(tw_url nx.test /)")"
is "$(lf_json .outcome)" dns_nxdomain "nx.test: dns_nxdomain"
lf GET /healthz '' -H 'X-Request-Id: bad id with spaces'
ok "an invalid X-Request-Id is replaced by a generated one" \
  test "$(lf_hdr X-Request-Id | grep -cE '^[0-9a-f]{16}$')" = 1

# ---- redirects are returned, never followed
tw_reset site2.test
lf POST /internal/v1/fetch "$(req "$(tw_url site2.test '/_b/redirect/302?to=/p/1.html')")"
is "$(lf_json '"\(.outcome) \(.status)"')" "ok 302" "redirect: ok with status 302"
is "$(lf_json .redirect)" "$(tw_url site2.test /p/1.html)" "redirect: absolute target"
is "$(tw_site_field site2.test .request_count)" 1 "redirect: testweb saw one request only"

# ---- /metrics counters move by exactly what was done
okb=$(metric 'llfs_fetches_total{outcome="ok"}')
reb=$(metric llfs_connections_reused_total)
hitb=$(metric llfs_dns_cache_hits_total)
accb=$(metric llfs_fetches_accepted_total)
for i in 1 2 3 4 5; do
  lf POST /internal/v1/fetch "$(req "$(tw_url site3.test "/p/$i.html")")" \
    -H 'Accept: application/x-wpfs-fetch'
done
is "$(( $(metric 'llfs_fetches_total{outcome="ok"}') - okb ))" 5 "metrics: 5 more ok fetches"
cmp_ge "$(( $(metric llfs_connections_reused_total) - reb ))" 4 "metrics: connections reused"
cmp_ge "$(( $(metric llfs_dns_cache_hits_total) - hitb ))" 4 "metrics: DNS cache hits"
is "$(( $(metric llfs_fetches_accepted_total) - accb ))" 5 "metrics: 5 fetches accepted"
is "$(tw_site_field site3.test .connections)" 1 "testweb: one TCP connection for the 5 fetches"
cmp_ge "$(metric 'llfs_http_requests_total{route="fetch",code="2xx"}')" 10 \
  "metrics: HTTP requests by route and status class"
# (the 413 too: the route is known before the body is refused)
is "$(metric 'llfs_http_requests_total{route="fetch",code="4xx"}')" 13 \
  "metrics: the 13 refusals of the fetch route counted as 4xx"

# ---- GET /internal/v1/resolve: the fetcher's own cache and guard
lf GET '/internal/v1/resolve?host=site7.test'
is "$LF_STATUS" 200 "resolve: 200"
is "$(lf_json '"\(.host) \(.outcome) \(.cached) \(.literal)"')" "site7.test ok false false" \
  "resolve: first answer from a query"
is "$(lf_json '.addresses | map("\(.address)/\(.family)/\(.allowed)") | join(",")')" \
  "127.10.0.8/4/true" "resolve: address, family, allowed (127/8 is allow-listed)"
cmp_ge "$(lf_json .ttl_s)" 290 "resolve: ttl_s from the zone (300 s)"
lf GET '/internal/v1/resolve?host=SITE7.test.'
is "$(lf_json '"\(.host) \(.cached)"')" "site7.test true" "resolve: canonical host, then cached"
is "$(dns_query_count site7.test)" 1 "resolve: one A query for both"
lf POST /internal/v1/fetch "$(req "$(tw_url site7.test /)")"
is "$(lf_json .outcome)" ok "a fetch after the resolve"
is "$(dns_query_count site7.test)" 1 "the fetch used the cache the resolve filled"
lf GET '/internal/v1/resolve?host=private.test'
is "$(lf_json '.addresses[0] | "\(.address) \(.allowed) \(.blocked_range)"')" \
  "10.0.0.1 false private" "resolve: private.test refused by the guard, with its range"
lf GET '/internal/v1/resolve?host=dual.test'
is "$(lf_json '.addresses | map("\(.family)") | join(",")')" "4,6" "resolve: dual stack, IPv4 first"
lf GET '/internal/v1/resolve?host=nx.test'
is "$(lf_json '"\(.outcome) \(.addresses | length)"')" "dns_nxdomain 0" "resolve: NXDOMAIN"
cmp_ge "$(lf_json .ttl_s)" 1 "resolve: negative answer cached, with its ttl"
lf GET '/internal/v1/resolve?host=2130706433'
is "$(lf_json '"\(.host) \(.literal) \(.ttl_s)"')" "127.0.0.1 true null" \
  "resolve: odd IPv4 spelling is a literal, not cached"
is "$(metric llfs_dns_literals_total)" 1 "metrics: the literal counted, no query"
lf GET '/internal/v1/resolve?host=%5B::ffff:10.0.0.1%5D'
is "$(lf_json '.addresses[0] | "\(.family) \(.blocked_range)"')" "6 private" \
  "resolve: IPv4-mapped IPv6 judged by its IPv4 address"
long=$(head -c 254 /dev/zero | tr '\0' a)
api_cases lf <<'CASES'
400 invalid-parameter - | resolve without host | GET /internal/v1/resolve
= host | resolve: the problem names host | .field
- - - | resolve: empty host | GET '/internal/v1/resolve?host='
= 400 host must not be empty | resolve: empty host | "\(.status) \(.field) \(.reason)"
- - - | resolve: 254-byte host | GET "/internal/v1/resolve?host=$long"
= 400 host | resolve: 254-byte host | "\(.status) \(.field)"
- - - | resolve: a port is refused | GET '/internal/v1/resolve?host=site1.test:80'
= 400 host | resolve: a port is refused | "\(.status) \(.field)"
- - - | resolve: url_error from the URL library | GET '/internal/v1/resolve?host=a..b'
= 400 empty_label | resolve: url_error from the URL library | "\(.status) \(.url_error)"
CASES

# ---- hold_us: the site is contacted no sooner than asked, counted from the
# request's arrival (testweb's clock and ours are the same wall clock)
t0=$(date +%s%6N)
lf POST /internal/v1/fetch "$(req "$(tw_url site11.test /held)" '{hold_us: 300000}')"
arr=$(tw_site_json site11.test requests=10 | jq '[.requests[] | select(.path == "/held")][0].arrive_us')
cmp_ge "$((arr - t0))" 300000 "hold_us: the request reached the site 300 ms or more after it was sent"
cmp_ge "$(lf_json .timings_us.hold)" 300000 "hold_us: timings_us.hold says how long it was held"
cmp_le "$(lf_json .timings_us.total)" 250000 "hold_us: timings_us.total counts from the end of the hold"
is "$(lf_json .outcome)" ok "hold_us: then fetched"
# the gauge of held fetches (a cancelled one never reaching its site is
# itest_fetch's test_hold: a caller hanging up is not seen while its
# answer is suspended)
curl -s -o "$T_DIR/held.out" -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" \
  --data-binary "$(req "$(tw_url site12.test /later)" '{hold_us: 1000000}')" &
held=$!
ok "hold_us: a held fetch shows in llfs_fetches_held" \
  wait_for 5 bash -c "curl -s $LLFS_URL/metrics | grep -qx 'llfs_fetches_held 1'"
is "$(tw_site_json site12.test requests=10 | jq '[.requests[] | select(.path == "/later")] | length')" 0 \
  "hold_us: the site has not seen it yet"
wait "$held"
is "$(jq -r .outcome "$T_DIR/held.out")" ok "hold_us: fetched when the hold ended"
is "$(metric llfs_fetches_held)" 0 "hold_us: llfs_fetches_held back to 0"
api_cases lf <<'CASES'
422 invalid-field - | hold_us -1 | POST /internal/v1/fetch "$(req "$U0" '{hold_us: -1}')"
= hold_us | hold_us -1: the problem names hold_us | .field
422 invalid-field - | hold_us above 10 s | \
    POST /internal/v1/fetch "$(req "$U0" '{hold_us: 10000001}')"
CASES

# ---- overload: a second llfs with one slot and no queue, a page that hangs
start_llfs --max-in-flight 1 --max-queue 0
curl -s -o "$T_DIR/hang.out" -w '%{http_code}' -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" \
  --data-binary "$(req "$(tw_url site4.test /_b/hang/x)" '{timeout_ms: 3000}')" \
  >"$T_DIR/hang.status" &
hang=$!
ok "overload: the hanging fetch is in flight" \
  wait_for 5 bash -c "curl -s $LLFS_URL/metrics | grep -qx 'llfs_fetches_in_flight 1'"
api_cases lf <<'CASES'
503 overloaded - | overloaded | POST /internal/v1/fetch "$(req "$U0")"
CASES
is "$(lf_hdr Retry-After)" 1 "overloaded: Retry-After: 1"
is "$(metric 'llfs_fetches_total{outcome="overloaded"}')" 1 "overloaded: counted"
wait "$hang"
is "$(cat "$T_DIR/hang.status") $(jq -r .outcome "$T_DIR/hang.out")" "200 timeout" \
  "overload: the hanging fetch ends with timeout at its own deadline"

# Both processes stop cleanly: exit 0 also means no sanitizer report in a
# SANITIZE=1 build (leaks are checked at exit).
for pid in "$MAIN_PID" "$LLFS_PID"; do
  kill -TERM "$pid"
  wait "$pid"
  is "$?" 0 "llfs $pid exits 0 on SIGTERM"
done
ok "no sanitizer report in the logs" \
  bash -c "! grep -hE 'ERROR: (Address|Leak)Sanitizer|runtime error' '$T_DIR'/llfs*.log"
done_testing
