#!/bin/bash
# robots.txt that fails for now loses nothing: the gateway delivers a URL
# whose robots.txt it could not read as final (robots_unavailable), and
# the crawler asks for it again in rounds per host (--robots-retries,
# --robots-retry-ms, doubled per round).
#  - a host whose robots.txt answers 503 and one whose robots.txt hangs
#    past the fetcher's timeout, both answering 200 once the crawl waits
#    for them: every page of each ends in the crawl log fetched (200), none
#    robots_unavailable, and testweb served each page once;
#  - a host whose robots.txt keeps answering 503 ends after 3 rounds: its
#    URLs logged robots_unavailable with cause robots_5xx and status 503,
#    counted robots_gave_up, its robots.txt asked again in each round;
#  - a name that does not exist (dns_nxdomain) ends at once, no round;
#  - --robots-retries 0 is the old behaviour: the flaky host's URLs lost;
#  - wpfs-focus, on the same engine, gives up after its rounds too; its
#    waits, longer than --stall-ms, are not a stall.
# timeout: 180
. "$WPFS_ROOT/tests/lib.sh"
TOKEN=robots-retry-token
FLAKY=127.23.0.1   # robots.txt 503, then 200
HANGS=127.23.0.2   # robots.txt hangs past the timeout, then 200
DOWN=127.23.0.3    # robots.txt 503 for good
site_json() {  # site_json ADDRESS ROBOTS: four pages, three linked (text of their own:
               # no host's page is a duplicate of another's)
  cat <<JSON
{"address": "$1", "pages": 0, "robots": $2,
 "paths": {"/": {"kind": "body", "ctype": "text/html", "body": "<a href=/b.html>b of $1</a>"},
           "/b.html": {"kind": "body", "ctype": "text/html", "body": "<a href=/c.html>c of $1</a>"},
           "/c.html": {"kind": "body", "ctype": "text/html", "body": "<p>c of $1</p>"},
           "/x.html": {"kind": "body", "ctype": "text/html", "body": "<p>x of $1</p>"}}}
JSON
}
GOOD_ROBOTS='{"disallow": "/private/", "sitemaps": []}'
echo '{"sites": []}' >"$T_DIR/none.json"
start_testweb --sites "$T_DIR/none.json"
P=$TESTWEB_PORT
# The fetcher's timeout (2 s) is what the hanging robots.txt meets. The
# gateway tries robots.txt again 1 s after a failure, then 2 s; a request
# claimed before that is delivered robots_unavailable (claimed again after
# the site's error backoff, 0.1 s: shorter, or the gateway would fetch
# robots.txt again itself). The crawler's rounds (1.5, 3, 6 s) come after
# the gateway's retry time, as its defaults do (1 min doubling each).
start_dnsmasq 1
start_redis
start_llfs --log-level warn --timeout-ms 2s --connect-timeout-ms 2s
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn \
  --robots-backoff-base-ms 1000 --robots-backoff-max-ms 2000 \
  --backoff-base-ms 100 --backoff-max-ms 200

put_sites() {  # put_sites FLAKY_ROBOTS HANGS_ROBOTS DOWN_ROBOTS (add, or replace)
  local how=$1
  shift
  local a=("$FLAKY" "$HANGS" "$DOWN") i
  for i in 0 1 2; do
    if [ "$how" = add ]; then
      tw_add_site "$(site_json "${a[$i]}" "$1")" >/dev/null
    else
      tw_put_site "${a[$i]}" "$(site_json "${a[$i]}" "$1")" >/dev/null
    fi
    shift
  done
}
cat >"$T_DIR/seeds" <<EOF
http://$FLAKY:$P/
http://$FLAKY:$P/x.html
http://$HANGS:$P/
http://$HANGS:$P/x.html
http://$DOWN:$P/
http://$DOWN:$P/x.html
http://nx.test/
EOF

# lines LOG HOST JQ: how many crawl log lines of HOST match JQ
lines() { jq -r --arg h "$2" "select(.url | startswith(\"http://\" + \$h + \"/\")) | select($3) | .url" \
            "$1" | wc -l; }
# robots_asks HOST: robots.txt requests testweb saw
robots_asks() { tw_site_json "$1" "requests=1000" | jq '[.requests[] | select(.path == "/robots.txt")] | length'; }
page_asks() { tw_site_json "$1" "requests=1000" | jq '[.requests[] | select(.path != "/robots.txt")] | length'; }
waited() {  # waited ERRFILE HOST: the crawler said HOST's URLs wait
  grep '"waiting for robots.txt"' "$1" | grep -q "http://$2"
}

# ---- wpfs-discover: two hosts come back, one never does ----------------------
put_sites add '{"status": 503}' '{"hold_ms": 600000}' '{"status": 503}'
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --log-level info \
  --seeds "$T_DIR/seeds" --out "$T_DIR/d" --progress false --stall-ms 60s \
  --robots-retries 3 --robots-retry-ms 1500ms >"$T_DIR/d.sum" 2>"$T_DIR/d.err" &
CRAWL=$!
wait_for 30 waited "$T_DIR/d.err" "$FLAKY:$P" || bail "the 503 host's URLs never waited"
wait_for 30 waited "$T_DIR/d.err" "$HANGS:$P" || bail "the hanging host's URLs never waited"
is "$(page_asks "$FLAKY")$(page_asks "$HANGS")" 00 "discover: no page asked while robots.txt fails"
put_sites put "$GOOD_ROBOTS" "$GOOD_ROBOTS" '{"status": 503}'
wait "$CRAWL"
is "$?" 0 "discover: the crawl ends, exit 0"
S=$(tail -1 "$T_DIR/d.sum")
L=$T_DIR/d/crawl.jsonl
for h in "$FLAKY:$P" "$HANGS:$P"; do
  is "$(lines "$L" "$h" '.status == 200' )" 4 "discover: every page of $h fetched (/, b, c, x)"
  is "$(lines "$L" "$h" '.outcome != "ok"')" 0 "discover: ...none of them robots_unavailable"
done
is "$(page_asks "$FLAKY") $(page_asks "$HANGS")" "4 4" "discover: ...each page asked once"
is "$(lines "$L" "$DOWN:$P" '.outcome == "robots_unavailable" and .cause == "robots_5xx" and
     .cause_status == 503')" 2 "discover: both URLs of the host that never comes back: robots_5xx"
is "$(lines "$L" "$DOWN:$P" 'true')" 2 "discover: ...each logged once"
ok "discover: ...after its third round" grep -q \
  "\"url\":\"http://$DOWN:$P/[^\"]*\".*round 3 of 3\|round 3 of 3.*\"url\":\"http://$DOWN:$P/" "$T_DIR/d.err"
cmp_ge "$(robots_asks "$DOWN")" 4 "discover: ...its robots.txt asked again in each round (first + 3)"
is "$(jq -c '[.robots_gave_up, .causes.robots_5xx, .causes.dns_nxdomain, .robots_waiting]' <<<"$S")" \
  '[2,2,1,0]' "discover: summary: 2 given up (robots_5xx), nx.test final at once, none waiting"
cmp_ge "$(jq .robots_rounds <<<"$S")" 5 "discover: summary: rounds (3 for the dead host, 1+ each flaky)"
cmp_ge "$(jq .robots_retried <<<"$S")" 6 "discover: summary: URLs put back to wait"
ok "discover: nx.test never waits (dns_nxdomain does not pass)" \
  bash -c "! grep '\"waiting for robots.txt\"' '$T_DIR/d.err' | grep -q nx.test"
is "$(jq -r 'select(.url == "http://nx.test/") | .cause' "$L")" dns_nxdomain \
  "discover: ...logged with its cause"

# ---- --robots-retries 0: the old behaviour, a flaky host lost ---------------
# (a host of its own: the gateway keeps FLAKY's good robots.txt for 10 min)
FLAKY0=127.23.0.4
tw_add_site "$(site_json "$FLAKY0" '{"status": 503}')" >/dev/null
printf 'http://%s:%s/\nhttp://%s:%s/x.html\n' "$FLAKY0" "$P" "$FLAKY0" "$P" >"$T_DIR/seeds0"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --log-level info \
  --seeds "$T_DIR/seeds0" --out "$T_DIR/d0" --progress false --stall-ms 60s \
  --robots-retries 0 >"$T_DIR/d0.sum" 2>"$T_DIR/d0.err"
is "$?" 5 "retries 0: no seed crawled (exit 5)"
is "$(lines "$T_DIR/d0/crawl.jsonl" "$FLAKY0:$P" '.cause == "robots_5xx"')" 2 \
  "retries 0: the flaky host's URLs end robots_5xx at their first answer"
is "$(tail -1 "$T_DIR/d0.sum" | jq -c '[.robots_rounds, .robots_retried, .robots_gave_up]')" \
  '[0,0,0]' "retries 0: nothing waits"

# ---- wpfs-focus: the same engine gives up after its rounds --------------------
grep "$DOWN" "$T_DIR/seeds" >"$T_DIR/seeds-down"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-focus" --gateway "$HLFS_URL" --log-level info \
  --seeds "$T_DIR/seeds-down" --out "$T_DIR/f" --topic "page words" --stall-ms 1s \
  --progress false --robots-retries 2 --robots-retry-ms 1500ms >"$T_DIR/f.sum" 2>"$T_DIR/f.err"
is "$?" 5 "focus: the dead host's seeds get no page (exit 5; waiting 1.5 and 3 s is no stall at --stall-ms 1s)"
F=$(tail -1 "$T_DIR/f.sum")
is "$(jq -c '[.robots_rounds, .robots_gave_up, .causes.robots_5xx]' <<<"$F")" '[2,2,2]' \
  "focus: 2 rounds, then both URLs given up with cause robots_5xx"
is "$(lines "$T_DIR/f/crawl.jsonl" "$DOWN:$P" '.cause == "robots_5xx"')" 2 \
  "focus: ...each logged once with its cause"
done_testing
