#!/bin/bash
# timeout: 60
# One access line per API request, at the default level, in both services:
# method, path, status, ms, client and the request id (the caller's
# X-Request-Id, or one the service made). Refusals (401, 4xx) are logged
# too; probes only at debug. The gateway passes a request's id to the fetcher, whose line
# carries the same id.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_testweb --generate sites=1,pages=4
start_llfs
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0
T=devtoken-123
HLOG="$T_DIR/hlfs-a.log"
LLOG="$T_DIR/llfs.log"
# line LOG REQ-ID: the access line of that request id (one JSON object)
line() { jq -c --arg r "$2" 'select(.msg == "request" and .req == $r)' "$1" 2>/dev/null | head -1; }
field() { echo "$1" | jq -r "$2"; }
wait_line() { wait_for 5 test -n "$(line "$1" "$2")"; }

curl -s -o /dev/null -H 'X-Request-Id: t-401' "$HLFS_URL/v1/results"
wait_line "$HLOG" t-401
l=$(line "$HLOG" t-401)
is "$(field "$l" '[.level, .method, .path, .status] | join(" ")')" "info GET /v1/results 401" \
  "a 401 is logged at info with method, path and status"
ok "with its duration in ms" test "$(field "$l" '.ms | type')" = number
is "$(field "$l" '.client')" null "no client before authentication"

curl -s -o /dev/null -H 'X-Request-Id: t-422' -H "Authorization: Bearer $T" \
  --data-binary '{"urls": 7}' "$HLFS_URL/v1/batches"
wait_line "$HLOG" t-422
l=$(line "$HLOG" t-422)
is "$(field "$l" '[.method, .path, (.status | tostring), .client] | join(" ")')" \
  "POST /v1/batches 422 dev" "a rejected body is logged with the client"

u=$(tw_url 127.10.0.1 /p/1.html)
s=$(curl -s -o "$T_DIR/sync.json" -w '%{http_code}' -H 'X-Request-Id: t-sync-1' -H "Authorization: Bearer $T" \
  --data-binary "{\"url\": \"$u\"}" "$HLFS_URL/v1/fetch")
is "$s" 200 "a synchronous fetch"
wait_line "$HLOG" t-sync-1
l=$(line "$HLOG" t-sync-1)
is "$(field "$l" '.status')" 200 "its gateway line"
work=$(field "$l" '.work')
is "$work" "$(jq -r .id "$T_DIR/sync.json")" "names the fetch it made (the result's id)"
wait_line "$LLOG" "$work"
l=$(line "$LLOG" "$work")
is "$(field "$l" '[.svc, .method, .path, (.status | tostring)] | join(" ")')" "llfs POST /internal/v1/fetch 200" \
  "the fetcher's line carries that id"

curl -s -o /dev/null -H 'X-Request-Id: t-llfs-400' --data-binary 'nope' -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch"
wait_line "$LLOG" t-llfs-400
is "$(field "$(line "$LLOG" t-llfs-400)" '.status')" 400 "the fetcher logs its refusals too"

curl -s -o /dev/null -D "$T_DIR/h" "$HLFS_URL/v1/stats"
rid=$(tr -d '\r' <"$T_DIR/h" | awk -F': ' 'tolower($1) == "x-request-id" { print $2 }')
ok "without X-Request-Id the service makes one" test -n "$rid"
wait_line "$HLOG" "$rid"
ok "and logs under it" test -n "$(line "$HLOG" "$rid")"

curl -s -o /dev/null -H 'X-Request-Id: t-probe' "$HLFS_URL/healthz"
curl -s -o /dev/null -H 'X-Request-Id: t-bad-id\"x' "$HLFS_URL/healthz"
sleep 0.3
is "$(line "$HLOG" t-probe)" "" "probes are not logged at info"
ok "every line of both logs is JSON" sh -c "jq -e . '$HLOG' '$LLOG' >/dev/null"
done_testing
