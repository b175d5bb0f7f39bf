#!/bin/bash
# timeout: 90
# Per-client quotas: a request rate (token bucket: rate, burst) answered per
# URL with over_rate_quota and retry_after_ms, and with 429 + Retry-After
# when nothing at all was accepted; a cap on URLs queued or in flight
# (max_queued) answered with over_queue_quota, which frees as work ends.
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate "sites=4,pages=30,hold_ms=600"
start_redis
start_llfs
cat >"$T_DIR/clients.json" <<'JSON'
{"clients": [
  {"name": "rated", "token": "token-rated-client", "rate": 0.5, "burst": 5},
  {"name": "capped", "token": "token-capped-client", "max_queued": 3},
  {"name": "free", "token": "token-free-client"}
]}
JSON
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 --log-level warn
u() { echo "http://127.10.0.$(($1 + 1)):$TESTWEB_PORT/p/$2.html"; }
urls() {  # site first last
  for i in $(seq "$2" "$3"); do u "$1" "$i"; done | jq -Rcn '{urls: [inputs]}'
}
post() {  # token body: the answer in $T_DIR/ans, headers in $T_DIR/hdr; prints the status
  curl -s -D "$T_DIR/hdr" -o "$T_DIR/ans" -w '%{http_code}' -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' --data-binary "$2" "$HLFS_URL/v1/batches"
}
statuses() { jq -c '[.items[] | .status + (if .reason then "/" + .reason else "" end)]' "$T_DIR/ans"; }
retry_after() { tr -d '\r' <"$T_DIR/hdr" | sed -n 's/^Retry-After: *//Ip'; }

# Rate: a burst of 5, then one token every 2 s: slow enough that a loaded
# machine does not refill the bucket between two steps that expect it empty.
R=token-rated-client
is "$(post $R "$(urls 0 1 8)")" 200 "rate: a batch over the burst is still answered 200"
is "$(statuses)" \
   '["accepted","accepted","accepted","accepted","accepted","rejected/over_rate_quota","rejected/over_rate_quota","rejected/over_rate_quota"]' \
   "rate: the burst (5) accepted, the rest over_rate_quota"
is "$(jq '[.accepted, .rejected] | join("/")' -r "$T_DIR/ans")" 5/3 "rate: counts say 5 accepted, 3 rejected"
ra=$(jq '[.items[] | select(.reason == "over_rate_quota") | .retry_after_ms] | min' "$T_DIR/ans")
cmp_ge "$ra" 1 "rate: a rejected URL says when to retry ($ra ms)"
cmp_le "$ra" 2000 "rate: no later than one token at 0.5/s"
is "$(post $R "$(urls 0 9 10)")" 429 "rate: nothing accepted: 429"
is "$(statuses)" '["rejected/over_rate_quota","rejected/over_rate_quota"]' "rate: with per-URL answers"
hdr=$(retry_after)
cmp_ge "${hdr:-0}" 1 "rate: and Retry-After: $hdr"
sleep 2.1
is "$(post $R "$(urls 0 11 11)")" 200 "rate: after Retry-After, accepted again"
is "$(statuses)" '["accepted"]' "rate: the bucket refilled"

# A synchronous fetch pays from the same bucket: empty, it is refused.
sync() {  # token url: the status; the answer in $T_DIR/ans
  curl -s -D "$T_DIR/hdr" -o "$T_DIR/ans" -w '%{http_code}' -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' --data-binary "{\"url\": \"$2\", \"max_age_s\": 0}" \
    "$HLFS_URL/v1/fetch"
}
post $R "$(urls 0 12 20)" >/dev/null  # the bucket is empty again
is "$(sync $R "$(u 2 1)")/$(jq -r .type "$T_DIR/ans")" "429/urn:wpfs:problem:over-quota" \
   "rate: a synchronous fetch with the bucket empty: 429 over-quota"
cmp_ge "$(retry_after)" 1 "rate: the synchronous 429 has Retry-After"
sleep 2.1
is "$(sync $R "$(u 2 1)")/$(jq -r .outcome "$T_DIR/ans")" "200/ok" \
   "rate: a token later, the synchronous fetch is served"

# Queue cap: 3 URLs queued or in flight at most (600 ms per response: they stay a while).
C=token-capped-client
is "$(post $C "$(urls 1 1 5)")" 200 "queue: a batch over the cap is answered 200"
is "$(statuses)" \
   '["accepted","accepted","accepted","rejected/over_queue_quota","rejected/over_queue_quota"]' \
   "queue: 3 accepted, the rest over_queue_quota"
cmp_ge "$(jq '[.items[] | select(.reason) | .retry_after_ms] | min' "$T_DIR/ans")" 1 \
   "queue: with retry_after_ms"
is "$(post $C "$(urls 1 6 7)")" 429 "queue: full: 429"
cmp_ge "$(retry_after)" 1 "queue: with Retry-After"
is "$(sync $C "$(u 2 2)")/$(jq -r .type "$T_DIR/ans")" "429/urn:wpfs:problem:over-quota" \
   "queue: a synchronous fetch with the queue full: 429 over-quota"
is "$(post token-free-client "$(urls 1 6 7)")" 200 "another client is not held by that cap"
is "$(sync token-free-client "$(u 2 3)")" 200 "another client's synchronous fetch is served"
m=$(curl -s "$HLFS_URL/metrics")
is "$(echo "$m" | awk '$1 == "hlfs_client_submitted_total{client=\"capped\",answer=\"over_queue_quota\"}" { print $2 }')" 5 \
   "the refused synchronous fetch is counted under its client (2 + 2 in batches, + 1)"
is "$(echo "$m" | awk '$1 == "hlfs_client_results_total{client=\"free\",outcome=\"ok\"}" { print $2 }')" 1 \
   "the served one too"
gw_results_all $C 3 30 >"$T_DIR/capped.jsonl"
is "$(wc -l <"$T_DIR/capped.jsonl")" 3 "queue: the 3 accepted URLs were fetched"
if [ "$(wc -l <"$T_DIR/capped.jsonl")" != 3 ]; then  # what held the missing one
  sed 's/^/# result: /' "$T_DIR/capped.jsonl"
  curl -s -H "Authorization: Bearer $C" "$HLFS_URL/v1/sites/127.10.0.2:$TESTWEB_PORT" | sed 's/^/# site: /'
  curl -s "$HLFS_URL/v1/stats" | jq -c . | sed 's/^/# stats: /'
  curl -s "$HLFS_URL/metrics" | grep -E '^hlfs_(client|sched|fetch)' | grep -v ' 0$' | sed 's/^/# /'
fi
is "$(post $C "$(urls 1 6 8)")" 200 "queue: once done, room again"
is "$(statuses)" '["accepted","accepted","accepted"]' "queue: 3 more accepted"
done_testing
