#!/bin/bash
# timeout: 120
# Politeness proven from the sites' side, with two gateway replicas sharing
# one Redis and one client submitting through both: testweb's record of
# every site must show one request in flight at most, robots.txt first and
# once, and gaps between requests (completion -> next arrival) of at least
# the largest of robots.txt Crawl-delay (whole and fractional seconds), the
# configured minimum delay and delay factor x response time; a site
# answering 503 or 429 with Retry-After gets nothing for that long; a site
# answering 500 waits longer after each error, and no more once it heals.
# Both replicas claim 100 ms ahead (--claim-ahead-us): their fetches wait
# in llfs for the rest of the delay (hold_us), so a hold lost on the way
# would show as gaps up to 100 ms short, well past the slack.
. "$WPFS_ROOT/tests/lib.sh"
MIN_DELAY=300   # --min-delay-ms
FACTOR=2        # --delay-factor
SLACK=30        # ms: the two clocks are one machine's, only rounding differs
PAGES=8

# address crawl_delay hold_ms: the expected gap is computed below.
SITES=(
  "127.20.0.1 1   50"
  "127.20.0.2 1   120"
  "127.20.0.3 0.5 40"
  "127.20.0.4 0.7 0"
  "127.20.0.5 -   0"
  "127.20.0.6 -   250"
)
BUSY=127.20.0.9   # /busy answers 503 with Retry-After: 2, /slow-down 429 with 1
FAILING=127.20.0.10  # /e/* answers 500
BACKOFF=200       # --backoff-base-ms: 200, 400, 800, 1600 ms after 1-4 errors

sites_json() {
  local s addr cd hold
  echo '{"sites":['
  for s in "${SITES[@]}"; do
    read -r addr cd hold <<<"$s"
    if [ "$cd" = - ]; then
      printf '{"address":"%s","pages":%d,"hold_ms":%d},\n' "$addr" $((PAGES + 1)) "$hold"
    else
      printf '{"address":"%s","pages":%d,"hold_ms":%d,"robots":{"crawl_delay":"%s"}},\n' \
        "$addr" $((PAGES + 1)) "$hold" "$cd"
    fi
  done
  printf '{"address":"%s","pages":%d,' "$BUSY" $((PAGES + 1))
  echo '"paths":{"/busy":{"kind":"status","status":503,"retry_after":2},'
  echo '"/slow-down":{"kind":"status","status":429,"retry_after":1}}},'
  printf '{"address":"%s","pages":4,"paths":{"/e/*":{"kind":"status","status":500}}}]}\n' "$FAILING"
}
sites_json >"$T_DIR/sites.json"
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs
TOKEN=politeness-token
ARGS=(--token "$TOKEN" --min-delay-ms "$MIN_DELAY" --delay-factor "$FACTOR"
      --backoff-base-ms "$BACKOFF" --claim-ahead-us 100000 --log-level warn)
start_hlfs a "${ARGS[@]}"
start_hlfs b "${ARGS[@]}"
URL_A="http://127.0.0.1:$HLFS_PORT_a" URL_B="http://127.0.0.1:$HLFS_PORT_b"

# Every site's pages, alternately through replica a and b, so that both
# schedulers have every site's work.
submit() {  # replica-url batch-json
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    --data-binary "$2" "$1/v1/batches" | jq .accepted
}
urls_a=() urls_b=()
for s in "${SITES[@]}" "$BUSY"; do
  addr=${s%% *}
  for p in $(seq 1 $PAGES); do
    u="http://$addr:$TESTWEB_PORT/p/$p.html"
    if [ $((p % 2)) = 0 ]; then urls_a+=("$u"); else urls_b+=("$u"); fi
  done
done
# /busy goes first at its site (priority 7), /slow-down next (6), then the
# site's pages. The failing URLs ask for one attempt each: the politeness
# after each single answer is measured here, the retry policy's tries in
# gateway_retry.sh.
busy_json=$(jq -cn --arg u "http://$BUSY:$TESTWEB_PORT/busy" --arg v "http://$BUSY:$TESTWEB_PORT/slow-down" \
  '{urls: [{url: $u, priority: 7}, {url: $v, priority: 6}], max_attempts: 1}')
# Four failing pages first at their site (priority 7), then three good ones.
fail_json=$(for i in 1 2 3 4; do echo "http://$FAILING:$TESTWEB_PORT/e/$i"; done \
  | jq -Rcn '{urls: [inputs | {url: ., priority: 7}], max_attempts: 1}')
good_json=$(for i in 1 2 3; do echo "http://$FAILING:$TESTWEB_PORT/p/$i.html"; done \
  | jq -Rcn '{urls: [inputs]}')
total=$(( ${#urls_a[@]} + ${#urls_b[@]} + 2 + 7 ))
acc=$(submit "$URL_A" "$busy_json")
acc=$((acc + $(submit "$URL_A" "$(printf '%s\n' "${urls_a[@]}" | jq -Rcn '{urls: [inputs]}')")))
acc=$((acc + $(submit "$URL_B" "$(printf '%s\n' "${urls_b[@]}" | jq -Rcn '{urls: [inputs]}')")))
acc=$((acc + $(submit "$URL_B" "$fail_json") + $(submit "$URL_A" "$good_json")))
is "$acc" "$total" "all $total URLs accepted through both replicas"

GW_BASE=$URL_B gw_results_all "$TOKEN" "$total" 90 >"$T_DIR/results.jsonl"
is "$(wc -l <"$T_DIR/results.jsonl")" "$total" "every URL has its result"
is "$(jq -r .outcome "$T_DIR/results.jsonl" | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd,)" \
   "ok=$total" "every URL fetched (a 503, 429 or 500 answer is a page too)"
is "$(jq -r 'select(.url | contains("/e/")) | .status' "$T_DIR/results.jsonl" | sort -u)" 500 \
   "the failing pages' results carry their status"
is "$(jq -r .id "$T_DIR/results.jsonl" | sort -u | wc -l)" "$total" "one result per request"
for r in a b; do
  port_var=HLFS_PORT_$r
  n=$(curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:${!port_var}/v1/stats" \
      | jq '.scheduler.fetches')
  cmp_ge "$n" 1 "replica $r fetched some of the pages ($n)"
done

# The sites' record.
site_checks() {  # addr expected-gap-ms what
  local addr=$1 want=$2 what=$3 j
  j=$(tw_site_json "$addr")
  is "$(jq .max_in_flight <<<"$j")" 1 "$addr: never two requests in flight"
  is "$(jq -r '.requests[0].path' <<<"$j")" /robots.txt "$addr: robots.txt fetched first"
  is "$(jq '[.requests[] | select(.path == "/robots.txt")] | length' <<<"$j")" 1 \
     "$addr: robots.txt fetched once for both replicas"
  is "$(jq .request_count <<<"$j")" "$4" "$addr: each page fetched once"
  cmp_ge "$(jq '.min_gap_ms | floor' <<<"$j")" $((want - SLACK)) \
     "$addr: every gap >= $want ms ($what)"
  echo "# $addr gaps (ms): $(jq -c '[.requests as $r | range(1; $r | length)
       | ($r[.].arrive_us - $r[. - 1].done_us) / 1000 | floor]' <<<"$j")"
}
for s in "${SITES[@]}"; do
  read -r addr cd hold <<<"$s"
  want=$MIN_DELAY what=min_delay
  if [ "$cd" != - ]; then
    cdms=$(awk -v c="$cd" 'BEGIN { printf "%d", c * 1000 }')
    [ "$cdms" -gt "$want" ] && want=$cdms what="crawl-delay $cd s"
  fi
  [ $((FACTOR * hold)) -gt "$want" ] && want=$((FACTOR * hold)) what="${FACTOR} x ${hold} ms response"
  site_checks "$addr" "$want" "$what" $((PAGES + 1))
done

# Which term won, as the gateway itself reports it.
reason() {
  GW_TOKEN=$TOKEN GW_BASE=$URL_A gw GET "/v1/sites/$1" | jq -r .next_reason
}
is "$(reason 127.20.0.1)" crawl_delay "127.20.0.1 waits for its crawl-delay"
is "$(reason 127.20.0.5)" min_delay "127.20.0.5 waits for the minimum delay"
is "$(reason 127.20.0.6)" response_time "127.20.0.6 waits for factor x response time"

# Retry-After: the request after the 503 comes >= 2 s after it, the one
# after the 429 >= 1 s after it.
site_checks "$BUSY" "$MIN_DELAY" min_delay $((PAGES + 3))
j=$(tw_site_json "$BUSY")
is "$(jq -r '[.requests[1:3][] | .path + " " + (.status|tostring)] | join(", ")' <<<"$j")" \
   "/busy 503, /slow-down 429" "$BUSY: the 503, then the 429, came right after robots.txt"
cmp_ge "$(jq '(.requests[2].arrive_us - .requests[1].done_us) / 1000 | floor' <<<"$j")" \
   $((2000 - SLACK)) "$BUSY: 503 with Retry-After: 2 honoured (no request for 2 s)"
cmp_ge "$(jq '(.requests[3].arrive_us - .requests[2].done_us) / 1000 | floor' <<<"$j")" \
   $((1000 - SLACK)) "$BUSY: 429 with Retry-After: 1 honoured (no request for 1 s)"

# Errors: the delay doubles from the backoff base (never under the
# minimum delay), and the first good answer brings it back to the minimum.
site_checks "$FAILING" "$MIN_DELAY" min_delay 8
j=$(tw_site_json "$FAILING")
is "$(jq -r '[.requests[].status | tostring] | join(" ")' <<<"$j")" "200 500 500 500 500 200 200 200" \
   "$FAILING: robots.txt, four errors, three pages"
want=($MIN_DELAY $MIN_DELAY $((BACKOFF * 2)) $((BACKOFF * 4)) $((BACKOFF * 8)) $MIN_DELAY $MIN_DELAY)
gaps=($(jq -r '.requests as $r | range(1; $r | length) | ($r[.].arrive_us - $r[. - 1].done_us) / 1000 | floor' <<<"$j"))
short=""
for i in "${!want[@]}"; do
  [ "${gaps[i]:-0}" -ge $((want[i] - SLACK)) ] || short="$short gap $i: ${gaps[i]:-none} < ${want[i]};"
done
is "$short" "" "$FAILING: gaps >= ${want[*]} ms (errors back off, success resets)"
cmp_le "${gaps[6]:-99999}" $((BACKOFF * 8)) "$FAILING: after healing, no more backoff"
done_testing
