#!/bin/bash
# timeout: 120
# Roles and page sharing per API key (docs/operations.md, "Security"): a
# crawler key reads the shared page cache but purges nothing of it, sees
# its own row of /status and not the fleet, and no client names; an
# operator key (and a key without a role: what every key was before roles)
# does all of it; a metrics key reads the per-client families and nothing
# else; a private key's pages are its own, both ways, even when its request
# and another client's meet in one fetch (coalesced). /metrics carries the
# client names, or not, as configured.
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/world.json" <<'JSON'
{"sites": [{"name": "ro.test", "address": "127.31.0.1", "pages": 10,
            "paths": {"/slow": {"kind": "body", "hold_ms": 5000, "size": 3000}}}]}
JSON
start_testweb --sites "$T_DIR/world.json"
start_redis
start_llfs
cat >"$T_DIR/clients.json" <<'JSON'
{"clients": [
  {"name": "op", "token": "token-of-op-1", "role": "operator"},
  {"name": "ca", "token": "token-of-ca-1", "role": "crawler"},
  {"name": "cb", "token": "token-of-cb-1", "role": "crawler", "private": false},
  {"name": "pv", "token": "token-of-pv-1", "role": "crawler", "private": true},
  {"name": "mx", "token": "token-of-mx-1", "role": "metrics"},
  {"name": "old", "token": "token-of-old-1"}
]}
JSON
ARGS=(--tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 --log-level warn)
start_hlfs a "${ARGS[@]}"
start_hlfs b "${ARGS[@]}" --metrics-client-names=false
A="http://127.0.0.1:$HLFS_PORT_a" B="http://127.0.0.1:$HLFS_PORT_b"
u() { tw_url 127.31.0.1 "$1"; }
enc() { jq -rn --arg u "$1" '$u|@uri'; }
# METHOD BASE PATH TOKEN [BODY]: body in $T_DIR/r.body, headers in r.head; prints the status
req() {
  local args=(-H "Authorization: Bearer $4")
  [ -n "${5:-}" ] && args+=(-H 'Content-Type: application/json' --data-binary "$5")
  curl -s -D "$T_DIR/r.head" -o "$T_DIR/r.body" -w '%{http_code}' -X "$1" "${args[@]}" "$2$3"
}
# req as api_cases's request: ARGS are req's.
req_case() { API_STATUS=$(req "$@") API_BODY=$T_DIR/r.body API_HEAD=$T_DIR/r.head; }
sync_fetch() {  # TOKEN URL: prints the status
  req POST "$A" /v1/fetch "$1" "$(jq -cn --arg u "$2" '{url: $u, max_age_s: 0}')"
}

# ---- the shared cache, and who purges it ----------------------------------
u1=$(u /p/1.html)
is "$(sync_fetch token-of-ca-1 "$u1")" 200 "ca fetches $u1"
api_cases req_case <<'CASES'
# STATUS TYPE FIELD | LABEL | req METHOD BASE PATH TOKEN [BODY] (api_cases, tests/lib.sh)
200 - - | cb reads the page ca fetched: the shared cache is a crawler key's by default | \
    GET "$B" "/v1/pages?url=$(enc "$u1")" token-of-cb-1
403 forbidden - | cb may not purge it: 403 | DELETE "$B" "/v1/pages?url=$(enc "$u1")" token-of-cb-1
= crawler | a forbidden problem naming the role | .role
403 forbidden - | nor may ca, which fetched it: the shared cache is every key's | \
    DELETE "$A" "/v1/pages?url=$(enc "$u1")" token-of-ca-1
200 - - | still there | GET "$A" "/v1/pages?url=$(enc "$u1")" token-of-cb-1
CASES
is "$(req DELETE "$A" "/v1/pages?url=$(enc "$u1")" token-of-op-1)/$(jq .purged "$T_DIR/r.body")" \
  200/true "an operator key purges it"
is "$(sync_fetch token-of-ca-1 "$u1")" 200 "fetched again"
is "$(req DELETE "$B" "/v1/pages?url=$(enc "$u1")" token-of-old-1)/$(jq .purged "$T_DIR/r.body")" \
  200/true "a key without a role is an operator's: it purges"

# ---- /status: the fleet for operators, its own row for a crawler ----------
sub() {  # BASE TOKEN URL...: prints the status
  local base=$1 tok=$2
  shift 2
  req POST "$base" /v1/batches "$tok" "$(printf '%s\n' "$@" | jq -Rcn '{urls: [inputs]}')"
}
is "$(sub "$A" token-of-cb-1 "$(u /p/2.html)" "$(u /p/3.html)")" 200 "cb queues two URLs"
api_cases req_case <<'CASES'
403 forbidden - | a crawler key: no fleet view (403) | GET "$A" /status token-of-ca-1
= crawler | forbidden, as problem+json | .role
403 - - | nor another client's row | GET "$A" /status?client=cb token-of-ca-1
200 - - | its own row: 200 | GET "$A" /status?client=ca token-of-ca-1
CASES
ok "it shows ca" grep -q '<tr><td>ca</td>' "$T_DIR/r.body"
ok "and no other client, site or URL" \
  bash -c "! grep -Eq '<tr><td>(cb|op|pv|mx|old)</td>|id=\"sites\"|id=\"errors\"' '$T_DIR/r.body'"
is "$(curl -s -o /dev/null -w '%{http_code}' -u "x:token-of-ca-1" "$A/status")" 403 \
  "the same with the key as a Basic password"
api_cases req_case <<'CASES'
200 - - | an operator key: the fleet | GET "$A" /status token-of-op-1
CASES
ok "every client, the busiest sites" \
  bash -c "grep -q '<tr><td>cb</td>' '$T_DIR/r.body' && grep -q 'id=\"sites\"' '$T_DIR/r.body'"
api_cases req_case <<'CASES'
200 - - | and any one client's row | GET "$A" /status?client=cb token-of-op-1
403 - - | a metrics key: no status page | GET "$A" /status token-of-mx-1
CASES

# ---- /metrics and the per-client families ---------------------------------
ok "replica a (default): /metrics names the clients" \
  bash -c "curl -s '$A/metrics' | grep -q 'client=\"cb\"'"
wait_for 10 bash -c "curl -s -H 'Authorization: Bearer token-of-mx-1' \
  '$B/v1/metrics/clients' | grep -q 'hlfs_client_queued{client=\"cb\"}'"
is "$(curl -s "$B/metrics" | grep -c 'client=')" 0 \
  "replica b (metrics_client_names false): no client label in /metrics"
ok "the replica's own families stay" bash -c "curl -s '$B/metrics' | grep -q '^hlfs_replicas '"
api_cases req_case <<'CASES'
200 - - | a metrics key reads them at /v1/metrics/clients | \
    GET "$B" /v1/metrics/clients token-of-mx-1
CASES
ok "cb's queue among them" grep -q 'hlfs_client_queued{client="cb"}' "$T_DIR/r.body"
api_cases req_case <<'CASES'
200 - - | so does an operator key | GET "$B" /v1/metrics/clients token-of-op-1
403 forbidden - | a crawler key does not | GET "$B" /v1/metrics/clients token-of-ca-1
= crawler | forbidden | .role
CASES
is "$(curl -s -o /dev/null -w '%{http_code}' "$B/v1/metrics/clients")" 401 "no key: 401"
is "$(sub "$B" token-of-mx-1 "$(u /p/4.html)")" 403 "a metrics key queues nothing"
api_cases req_case <<'CASES'
200 - - | but reads the replica's counters | GET "$B" /v1/stats token-of-mx-1
CASES
cmp_ge "$(jq .gateway.forbidden "$T_DIR/r.body")" 1 "which count the refusals (forbidden)"

# ---- a private key's pages are its own ------------------------------------
u5=$(u /p/5.html)
is "$(sub "$A" token-of-pv-1 "$u5")" 200 "pv queues $u5"
GW_BASE=$A gw_results_all token-of-pv-1 1 20 >/dev/null
res=$(curl -s -H 'Authorization: Bearer token-of-pv-1' "$A/v1/results?wait_ms=100")
is "$(req GET "$A" "/v1/pages?url=$(enc "$u5")" token-of-pv-1)/$(jq -r .outcome "$T_DIR/r.body")" \
  200/ok "pv reads the page it fetched"
api_cases req_case <<'CASES'
404 - - | ca does not: not cached for it | GET "$B" "/v1/pages?url=$(enc "$u5")" token-of-ca-1
404 - - | nor does an operator, without client= | \
    GET "$B" "/v1/pages?url=$(enc "$u5")" token-of-op-1
200 - - | an operator reaches it with client=pv | \
    GET "$B" "/v1/pages?url=$(enc "$u5")&client=pv" token-of-op-1
403 - - | a crawler may not | GET "$B" "/v1/pages?url=$(enc "$u5")&client=pv" token-of-ca-1
200 - - | pv naming itself: its own | GET "$B" "/v1/pages?url=$(enc "$u5")&client=pv" token-of-pv-1
400 - - | client= names a private key only | \
    GET "$B" "/v1/pages?url=$(enc "$u5")&client=ca" token-of-op-1
CASES
is "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'page:*:pv' | wc -l)" 1 \
  "the page cache keeps it under pv's name"
is "$(req GET "$A" "/v1/pages?url=$(enc "$u1")" token-of-pv-1)" 404 \
  "pv does not read the shared copy ca fetched"
is "$(sync_fetch token-of-pv-1 "$u1")" 403 "nor fetch synchronously (the page would be shared)"
is "$(sub "$A" token-of-ca-1 "$u5")" 200 "ca queues $u5 itself"
GW_BASE=$A gw_results_all token-of-ca-1 1 20 >"$T_DIR/ca5.jsonl"
is "$(jq -r 'select(.url == "'"$u5"'") | .outcome' "$T_DIR/ca5.jsonl")" ok \
  "ca's own fetch of it, not pv's copy (a cached outcome would be)"
is "$(req DELETE "$A" "/v1/pages?url=$(enc "$u5")" token-of-pv-1)/$(jq .purged "$T_DIR/r.body")" \
  200/true "pv purges its own copy"
is "$(req GET "$A" "/v1/pages?url=$(enc "$u5")" token-of-ca-1)" 200 "and ca's shared one stays"

# Coalesced: ca asks for the URL pv's fetch is getting; ca's result is that
# fetch's, without pv's page.
slow=$(u /slow)
is "$(sub "$A" token-of-pv-1 "$slow")" 200 "pv queues $slow (held 5 s: time for ca to join)"
wait_for 10 bash -c "curl -s -H 'Authorization: Bearer token-of-op-1' '$A/status?client=pv' | \
  grep -q '<tr><td>pv</td><td>0</td><td>1</td>'"
is "$(sub "$A" token-of-ca-1 "$slow")/$(jq -r '.items[0].status' "$T_DIR/r.body")" 200/accepted \
  "ca's request joins pv's fetch"
GW_BASE=$A gw_results_all token-of-ca-1 1 20 >"$T_DIR/cas.jsonl"
GW_BASE=$A gw_results_all token-of-pv-1 1 20 >"$T_DIR/pvs.jsonl"
is "$(jq -r '.outcome + " " + .page' "$T_DIR/cas.jsonl")" "ok withheld" \
  "ca gets the outcome, not pv's page"
ok "coalesced with pv's request" test "$(jq -r .coalesced_with "$T_DIR/cas.jsonl")" = \
  "$(jq -r .id "$T_DIR/pvs.jsonl")"
is "$(jq -r '.outcome + " " + (.body_bytes | tostring)' "$T_DIR/pvs.jsonl")" "ok 3000" \
  "pv gets its page"
done_testing
