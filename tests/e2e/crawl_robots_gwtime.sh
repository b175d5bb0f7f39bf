#!/bin/bash
# The crawler's robots.txt rounds wait for the gateway's own retry time.
# The gateway fetches a failed robots.txt again after 4 s; the crawler's
# rounds are 0.5, 1 and 2 s. Each robots_unavailable result says when the
# gateway will ask again (robots_retry_at), and a round ends after that:
# the host's robots.txt, answering 503 and then 200 from the 3rd second,
# is read again within the first round and every page is fetched. Before,
# the rounds ended at their own times, all three within the gateway's
# 4 s, each hearing the same verdict: the URLs were given up (robots_5xx).
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
TOKEN=robots-gwtime-token
H=127.25.0.1
site_json() {
  cat <<JSON
{"address": "$H", "pages": 0, "robots": $1,
 "paths": {"/": {"kind": "body", "ctype": "text/html", "body": "<a href=/b.html>b</a>"},
           "/b.html": {"kind": "body", "ctype": "text/html", "body": "<p>b of $H</p>"}}}
JSON
}
echo '{"sites": []}' >"$T_DIR/none.json"
start_testweb --sites "$T_DIR/none.json"
P=$TESTWEB_PORT
start_dnsmasq 1
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn \
  --robots-backoff-base-ms 4000 --robots-backoff-max-ms 4000 \
  --backoff-base-ms 100 --backoff-max-ms 200
tw_add_site "$(site_json '{"status": 503}')" >/dev/null
echo "http://$H:$P/" >"$T_DIR/seeds"
robots_asks() { tw_site_json "$H" "requests=1000" | jq '[.requests[] | select(.path == "/robots.txt")] | length'; }

# the result says when the gateway asks again (another host, robots.txt 503)
H2=127.25.0.2
tw_add_site "$(site_json '{"status": 503}' | sed "s/$H/$H2/g")" >/dev/null
wpfs() { WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs" --gateway "$HLFS_URL" "$@"; }
echo "http://$H2:$P/" | wpfs submit - >/dev/null
first_result "$T_DIR/r"
is "$(jq -r .outcome "$T_DIR/r")" robots_unavailable "API: robots_unavailable"
at=$(jq -r '.tries[0].at' "$T_DIR/r")
rra=$(jq -r '.robots_retry_at' "$T_DIR/r")
cmp_ge "$rra" "$((at + 2000))" "API: robots_retry_at is the gateway's retry time (4 s after the failure)"
cmp_le "$rra" "$((at + 4000))" "API: ...not later"

WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --log-level info \
  --seeds "$T_DIR/seeds" --out "$T_DIR/d" --progress false --stall-ms 60s \
  --robots-retries 3 --robots-retry-ms 500ms >"$T_DIR/d.sum" 2>"$T_DIR/d.err" &
CRAWL=$!
first_ask() { [ "$(robots_asks)" -ge 1 ]; }
wait_for 20 first_ask || bail "robots.txt never asked"
sleep 2.5
tw_put_site "$H" "$(site_json '{"disallow": "/private/", "sitemaps": []}')" >/dev/null
wait "$CRAWL"
is "$?" 0 "the crawl ends, exit 0"
L=$T_DIR/d/crawl.jsonl
is "$(jq -r 'select(.status == 200) | .url' "$L" | sort | tr '\n' ' ')" \
  "http://$H:$P/ http://$H:$P/b.html " "both pages fetched once robots.txt answers"
is "$(jq -c 'select(.outcome == "robots_unavailable")' "$L" | wc -l)" 0 "none given up"
is "$(tail -1 "$T_DIR/d.sum" | jq .robots_rounds)" 1 "one round, ended after the gateway's retry time"
ok "the round's wait said is the gateway's (about 4 s, not 0.5 s)" \
  grep -Eq 'asked again in [4-5]\.[0-9] s \(round 1 of 3\)' "$T_DIR/d.err"
cmp_le "$(robots_asks)" 2 "robots.txt asked twice: the failure and the retry"
done_testing
