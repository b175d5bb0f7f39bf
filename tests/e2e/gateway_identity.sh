#!/bin/bash
# timeout: 150
# An identity per API key, and a request's own method and headers
# (docs/operations.md, "Identities"; docs/api.md): two keys with their own
# User-Agent and robots.txt product token, and a robots.txt that disallows
# one of them a directory: that key's URLs there are refused, the other's
# fetched; the site sees each key's User-Agent, one request at a time
# across both, spaced by the strictest Crawl-delay any of them has. A
# HEAD reaches the site as HEAD; a header outside the allow-list is a 422
# naming it; a page fetched with Accept-Language: fr is not served to a
# request without it (nor the other way round).
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/world.json" <<'JSON'
{"sites": [{"name": "id.test", "address": "127.31.1.1", "pages": 10,
            "robots": "User-agent: blockedbot\nDisallow: /p/\nCrawl-delay: 0.4\n\nUser-agent: *\nDisallow: /private/\n",
            "paths": {"/x/*": {"kind": "body", "size": 300},
                      "/y/*": {"kind": "body", "size": 300},
                      "/r/*": {"kind": "redirect", "code": 301, "to": "/x/30"}}}]}
JSON
start_testweb --sites "$T_DIR/world.json"
start_redis
start_llfs
cat >"$T_DIR/clients.json" <<'JSON'
{"clients": [
  {"name": "ok", "token": "token-of-ok-1", "role": "crawler",
   "user_agent": "okbot/1.0 (+http://ok.example/bot)"},
  {"name": "bl", "token": "token-of-bl-1", "role": "crawler",
   "user_agent": "Mozilla/5.0 (compatible; blocked)", "product_token": "blockedbot"},
  {"name": "plain", "token": "token-of-plain-1"}
]}
JSON
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 \
  --user-agent "wpfs-test/9" --log-level warn
u() { tw_url 127.31.1.1 "$1"; }
enc() { jq -rn --arg u "$1" '$u|@uri'; }
req() {  # METHOD PATH TOKEN [BODY]: body in $T_DIR/r.body; prints the status
  local args=(-H "Authorization: Bearer $3")
  [ -n "${4:-}" ] && args+=(-H 'Content-Type: application/json' --data-binary "$4")
  curl -s -o "$T_DIR/r.body" -w '%{http_code}' -X "$1" "${args[@]}" "$HLFS_URL$2"
}
sub() {  # TOKEN URL...: prints the status (no stored copy will do: each fetches)
  local tok=$1
  shift
  req POST /v1/batches "$tok" "$(printf '%s\n' "$@" | jq -Rcn '{urls: [inputs], max_age_s: 0}')"
}
reqs() { tw_site_json 127.31.1.1 | jq -c '.requests[]'; }

# ---- two identities, one site ---------------------------------------------
ps=("$(u /p/1.html)" "$(u /p/2.html)" "$(u /p/3.html)")
is "$(sub token-of-ok-1 "${ps[@]}" "$(u /x/1)" "$(u /x/2)" "$(u /x/3)")" 200 \
  "ok queues 3 URLs under /p/ and 3 under /x/"
is "$(sub token-of-bl-1 "${ps[@]}" "$(u /y/1)" "$(u /y/2)" "$(u /y/3)")" 200 \
  "bl queues the same 3 under /p/ and 3 under /y/"
GW_BASE=$HLFS_URL gw_results_all token-of-ok-1 6 40 >"$T_DIR/ok.res"
GW_BASE=$HLFS_URL gw_results_all token-of-bl-1 6 40 >"$T_DIR/bl.res"
is "$(jq -r .outcome "$T_DIR/ok.res" | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd,)" \
  "ok=6" "ok (okbot, the * group): all 6 fetched"
is "$(jq -r 'select(.url | test("/p/")) | .outcome' "$T_DIR/bl.res" | sort | uniq -c | awk '{$1=$1; print}')" \
  "3 robots_disallowed" "bl (blockedbot): its 3 URLs under /p/ refused by robots.txt"
is "$(jq -r 'select(.url | test("/y/")) | .outcome' "$T_DIR/bl.res" | sort | uniq -c | awk '{$1=$1; print}')" \
  "3 ok" "and its 3 under /y/ fetched"
reqs >"$T_DIR/reqs"
is "$(jq -r 'select(.path | test("^/p/")) | .ua' "$T_DIR/reqs" | sort | uniq -c | awk '{$1=$1; print}')" \
  "3 okbot/1.0 (+http://ok.example/bot)" "the site saw /p/ asked 3 times, by okbot's User-Agent"
is "$(jq -r 'select(.path | test("^/x/")) | .ua' "$T_DIR/reqs" | sort | uniq -c | awk '{$1=$1; print}')" \
  "3 okbot/1.0 (+http://ok.example/bot)" "/x/ 3 times by okbot's User-Agent"
is "$(jq -r 'select(.path | test("^/y/")) | .ua' "$T_DIR/reqs" | sort | uniq -c | awk '{$1=$1; print}')" \
  "3 Mozilla/5.0 (compatible; blocked)" "/y/ 3 times by bl's own User-Agent"
is "$(jq -r 'select(.path == "/robots.txt") | .ua' "$T_DIR/reqs" | paste -sd,)" "wpfs-test/9" \
  "robots.txt fetched once, by the gateway's User-Agent"
is "$(tw_site_field 127.31.1.1 .max_in_flight)" 1 "one request at a time across both keys"
cmp_ge "$(tw_site_field 127.31.1.1 .min_gap_ms | cut -d. -f1)" 390 \
  "each after the strictest Crawl-delay of the keys (blockedbot's 0.4 s; ms)"

# ---- GET /v1/robots for an agent -------------------------------------------
is "$(req GET "/v1/robots?url=$(enc "$(u /p/1.html)")" token-of-bl-1)" 200 "robots, as bl"
is "$(jq -r '"\(.allowed) \(.product_token)"' "$T_DIR/r.body")" "false blockedbot" \
  "bl's own product token by default: disallowed"
is "$(req GET "/v1/robots?url=$(enc "$(u /p/1.html)")&agent=okbot" token-of-bl-1)" 200 \
  "and for agent=okbot"
is "$(jq -r '"\(.allowed) \(.product_token)"' "$T_DIR/r.body")" "true okbot" "allowed"
ok "wpfs robots --explain --agent okbot: allowed, for okbot" bash -c \
  "WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=token-of-bl-1 '$WPFS_BIN/wpfs' robots --explain --agent okbot \
   '$(u /p/1.html)' | grep -q 'allowed' && WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=token-of-bl-1 \
   '$WPFS_BIN/wpfs' robots --explain --agent okbot '$(u /p/1.html)' | grep -q 'product token okbot'"
ok "wpfs robots as bl: disallowed (exit 1)" bash -c \
  "! WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=token-of-bl-1 '$WPFS_BIN/wpfs' robots '$(u /p/1.html)' >/dev/null"
is "$(req GET "/v1/robots?url=$(enc "$(u /p/1.html)")&agent=%2Fbad" token-of-bl-1)" 422 \
  "an agent that starts with no product token: 422"

# ---- HEAD ------------------------------------------------------------------
is "$(req POST /v1/fetch token-of-plain-1 "$(jq -cn --arg u "$(u /x/9)" '{url: $u, method: "HEAD"}')")" \
  200 "a HEAD fetch"
is "$(jq -r .outcome "$T_DIR/r.body")" ok "its result: ok"
is "$(reqs | jq -r 'select(.path == "/x/9") | "\(.method) \(.ua)"')" "HEAD wpfs-test/9" \
  "reached the site as HEAD, with the gateway's User-Agent (plain has none of its own)"

is "$(req POST /v1/batches token-of-plain-1 "$(jq -cn --arg u "$(u /r/1)" \
  '{urls: [{url: $u, method: "HEAD", follow_redirects: 2, headers: {"Accept-Language": "fr"}}]}')")" \
  200 "a HEAD that follows redirects"
GW_BASE=$HLFS_URL gw_results_all token-of-plain-1 1 20 >"$T_DIR/plain.res"
is "$(jq -r '"\(.outcome) \(.url) \(.redirects | join(","))"' "$T_DIR/plain.res")" \
  "ok $(u /r/1) $(u /x/30)" "its result names its URL and the hop, without the options"
is "$(reqs | jq -r 'select(.path == "/r/1" or .path == "/x/30") | "\(.method) \(.path)"' | paste -sd,)" \
  "HEAD /r/1,HEAD /x/30" "the hop went as HEAD too"

# ---- headers: the allow-list -------------------------------------------------
hdr() {  # HEADER VALUE: a batch of /x/10 asking for that header
  jq -cn --arg u "$(u /x/10)" --arg h "$1" --arg v "$2" '{urls: [{url: $u, headers: {($h): $v}}]}'
}
OK=(-H 'Authorization: Bearer token-of-ok-1')
api_cases api_req <<'CASES'
# STATUS TYPE FIELD | LABEL | api_req ARGS (api_cases, tests/lib.sh)
422 invalid-field urls[0].headers.X-Secret | a header outside --client-headers: 422 naming it | \
    "${OK[@]}" -d "$(hdr X-Secret 1)" POST "$HLFS_URL/v1/batches"
422 invalid-field urls[0].headers.Cookie | Cookie, not listed: 422 | \
    "${OK[@]}" -d "$(hdr Cookie a=b)" POST "$HLFS_URL/v1/batches"
422 invalid-field urls[0].headers.Host | Host, never: 422 | \
    "${OK[@]}" -d "$(hdr Host evil.test)" POST "$HLFS_URL/v1/batches"
CASES
ok "...saying it is the gateway's own" grep -q "gateway's own" "$API_BODY"
api_cases api_req <<'CASES'
422 - method | method PUT: 422 | \
    "${OK[@]}" -d "$(jq -cn --arg u "$(u /x/10)" '{url: $u, method: "PUT"}')" \
    POST "$HLFS_URL/v1/fetch"
CASES

# ---- Accept-Language: the page cache keys on it ----------------------------
fetch_al() {  # [LANG]: the outcome of a synchronous fetch of /x/20
  local b
  b=$(jq -cn --arg u "$(u /x/20)" --arg l "${1:-}" \
    '{url: $u} + (if $l == "" then {} else {headers: {"Accept-Language": $l}} end)')
  req POST /v1/fetch token-of-ok-1 "$b" >/dev/null
  jq -r .outcome "$T_DIR/r.body"
}
n20() { reqs | jq -r 'select(.path == "/x/20")' | jq -s length; }
is "$(fetch_al fr)" ok "Accept-Language: fr fetched"
is "$(n20)" 1 "the site asked once"
is "$(fetch_al)" ok "without it: fetched, not the fr copy"
is "$(n20)" 2 "the site asked again"
is "$(fetch_al)" cached "without it again: its own copy, cached"
is "$(fetch_al fr)" cached "fr again: the fr copy, cached"
is "$(n20)" 2 "the site asked no more"
done_testing
