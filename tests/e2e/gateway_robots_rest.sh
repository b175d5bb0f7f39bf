#!/bin/bash
# A request whose robots.txt fails is answered, whatever the gateway's
# backoffs: here robots.txt is retried after 1 s while a site that failed
# rests 3 s. The record of the failure outlasts the site's rest, so the
# claim that comes when the rest ends finds it and answers the request
# robots_unavailable (cause: robots.txt's 503). Before, the record had
# expired by then: the claim fetched robots.txt again and gave the request
# back to the queue, at every rest, and the request was never answered
# (7 robots.txt fetches in 20 s, no result).
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
TOKEN=robots-rest-token
A=127.24.0.1
echo '{"sites": []}' >"$T_DIR/none.json"
start_testweb --sites "$T_DIR/none.json"
start_dnsmasq 1
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn \
  --robots-backoff-base-ms 1000 --robots-backoff-max-ms 1000 \
  --backoff-base-ms 3000 --backoff-max-ms 3000 --backoff-jitter 0
tw_add_site "{\"address\": \"$A\", \"pages\": 0, \"robots\": {\"status\": 503},
  \"paths\": {\"/p\": {\"kind\": \"body\", \"ctype\": \"text/html\", \"body\": \"p\"}}}" >/dev/null
URL="http://$A:$TESTWEB_PORT/p"
wpfs() { WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs" --gateway "$HLFS_URL" "$@"; }
robots_asks() { tw_site_json "$A" "requests=1000" | jq '[.requests[] | select(.path == "/robots.txt")] | length'; }

echo "$URL" | wpfs submit - >/dev/null
first_result "$T_DIR/results"
is "$(jq -r .outcome "$T_DIR/results" | head -1)" robots_unavailable "the request is answered"
is "$(jq -r .cause_status "$T_DIR/results" | head -1)" 503 "its cause is robots.txt's answer"
asks=$(robots_asks)
cmp_le "$asks" 2 "robots.txt fetched once before the answer (not once per rest)"
is "$(tw_site_json "$A" "requests=1000" | jq '[.requests[] | select(.path == "/p")] | length')" 0 \
  "the site's page was never asked"
# the record still ends: the same page asked again once it has (the
# site's rest, 3 s, and the margin, 2 s) sends robots.txt a fetch again
sleep 6
echo "$URL" | wpfs submit - >/dev/null
asked_again() { [ "$(robots_asks)" -gt "$asks" ]; }
wait_for 20 asked_again
ok "robots.txt fetched again after its record ended" asked_again
done_testing
