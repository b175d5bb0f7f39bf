#!/bin/bash
# Nothing lost to the real Web: a name that does not exist, a server that
# refuses connections, one that never answers, and one that answers
# robots.txt with 503 each end every URL of their host without a page,
# and all three crawlers (wpfs-discover, wpfs-focus, wpfs-refresh) name
# the gateway's cause of each on its crawl log line (dns_nxdomain,
# connect_refused, timeout, robots_5xx) and count them by cause in the
# summary; wpfs-discover also says it on stderr. A .html.gz seed is
# refused with its reason (the extension denylist), never silently; a
# crawl whose every seed is refused exits 2, one whose every seed ends
# without a page exits 5, each saying why. --sitemaps false is taken.
# timeout: 180
. "$WPFS_ROOT/tests/lib.sh"
TOKEN=causes-token
GOOD=127.22.0.1
HANG=127.22.0.2
ERR=127.22.0.3
# The good site's robots.txt names a sitemap listing a page linked from
# nowhere: with --sitemaps false it is never fetched.
cat >"$T_DIR/sites.json" <<JSON
{"sites": [
  {"address": "$GOOD", "pages": 0,
   "robots": {"sitemaps": ["http://$GOOD:PORT/sitemap.xml"]},
   "paths": {"/": {"kind": "body", "ctype": "text/html", "body": "<a href=/b.html>b</a>"},
             "/b.html": {"kind": "body", "ctype": "text/html", "body": "<p>b</p>"},
             "/sitemap.xml": {"kind": "body", "ctype": "application/xml",
                              "body": "<urlset><url><loc>http://$GOOD:PORT/only.html</loc></url></urlset>"},
             "/only.html": {"kind": "body", "ctype": "text/html", "body": "<p>only</p>"}}},
  {"address": "$HANG", "pages": 2, "robots": {"hold_ms": 600000}},
  {"address": "$ERR", "pages": 2, "robots": {"status": 503}}
]}
JSON
echo '{"sites": []}' >"$T_DIR/none.json"
start_testweb --sites "$T_DIR/none.json"
P=$TESTWEB_PORT
while read -r site; do tw_add_site "$site" >/dev/null; done < <(
  sed "s/PORT/$P/g" "$T_DIR/sites.json" | jq -c '.sites[]')
start_dnsmasq 1
start_redis
start_llfs --log-level warn --timeout-ms 2s --connect-timeout-ms 2s
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

# Two URLs on each dead host: every URL of the host is named.
cat >"$T_DIR/seeds" <<EOF
http://$GOOD:$P/
http://$GOOD:$P/archive/page.html.gz
http://nx.test/
http://nx.test/other.html
http://127.22.0.9:1/
http://127.22.0.9:1/other.html
http://$HANG:$P/
http://$HANG:$P/p/1.html
http://$ERR:$P/
http://$ERR:$P/p/1.html
EOF
tail -n +3 "$T_DIR/seeds" >"$T_DIR/dead"
declare -A HOST_CAUSE=([nx.test]=dns_nxdomain [127.22.0.9:1]=connect_refused
                       ["$HANG:$P"]=timeout ["$ERR:$P"]=robots_5xx)

# causes_of LOG: "host cause" per line without a page, sorted
causes_of() {
  jq -r 'select(.status == 0) | (.url | sub("^http://"; "") | sub("/.*"; "")) + " " +
         .outcome + " " + (.cause // "-")' "$1" | sort
}
# check_log NAME LOG SUMMARY_CAUSES: every dead host's two URLs named, and counted
check_log() {
  local name=$1 log=$2 sum=$3 host
  for host in "${!HOST_CAUSE[@]}"; do
    is "$(causes_of "$log" | grep -c "^$host robots_unavailable ${HOST_CAUSE[$host]}$")" 2 \
      "$name: both URLs of $host logged robots_unavailable with cause ${HOST_CAUSE[$host]}"
  done
  is "$(jq -c '{dns_nxdomain, connect_refused, timeout, robots_5xx}' <<<"$sum")" \
    '{"dns_nxdomain":2,"connect_refused":2,"timeout":2,"robots_5xx":2}' \
    "$name: the summary counts them by cause"
}

# ---- wpfs-discover -----------------------------------------------------------
# --robots-retries 0: each cause at its first verdict (the rounds that ask
# a hanging or 503 host again: crawl_robots_retry.sh)
discover() {
  WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --log-level info \
    --stall-ms 60s --robots-retries 0 "$@"
}
discover --seeds "$T_DIR/seeds" --out "$T_DIR/d" --sitemaps false --progress false \
  >"$T_DIR/d.sum" 2>"$T_DIR/d.err"
is "$?" 0 "wpfs-discover --sitemaps false --progress false: taken, exit 0"
S=$(tail -1 "$T_DIR/d.sum")
check_log discover "$T_DIR/d/crawl.jsonl" "$(jq -c .causes <<<"$S")"
is "$(jq -r 'select(.cause == "robots_5xx") | .cause_status' "$T_DIR/d/crawl.jsonl" | sort -u)" \
  503 "discover: robots_5xx lines carry robots.txt's status"
is "$(jq -r 'select(.status == 200) | .url' "$T_DIR/d/crawl.jsonl" | sort | tr '\n' ' ')" \
  "http://$GOOD:$P/ http://$GOOD:$P/b.html " "discover: the good site's pages fetched"
is "$(jq -r 'select(.status == 200) | has("cause")' "$T_DIR/d/crawl.jsonl" | sort -u)" false \
  "discover: a page has no cause"
ok "discover: stderr says the causes in words" grep -q \
  '8 URLs ended without a page: connect_refused 2, dns_nxdomain 2, robots_5xx 2, timeout 2' \
  "$T_DIR/d.err"
ok "discover: the .html.gz seed is refused with its reason and line" grep -q \
  "seeds line 2: file type that is not a page (the extension denylist, --deny-ext) (extension)" \
  "$T_DIR/d.err"
is "$(jq -c '[.seeds, .seeds_refused, .seed_refusals]' <<<"$S")" '[9,1,{"extension":1}]' \
  "discover: 9 seeds queued, 1 refused, counted by reason"
is "$(jq -r .sitemaps <<<"$S")" 0 "discover: --sitemaps false: no sitemap read"
is "$(tw_site_json "$GOOD" "requests=100" | jq '[.requests[] | select(.path == "/only.html" or
   .path == "/sitemap.xml")] | length')" 0 "discover: ...the page only a sitemap lists not fetched"

echo "http://$GOOD:$P/archive/page.html.gz" >"$T_DIR/gz"
discover --seeds "$T_DIR/gz" --out "$T_DIR/d2" >"$T_DIR/d2.sum" 2>"$T_DIR/d2.err"
is "$?" 2 "discover: the only seed is a .html.gz: exit 2"
ok "discover: ...saying no seed is left, and why" grep -q \
  "no seed left in $T_DIR/gz: every line was refused (extension 1)" "$T_DIR/d2.err"
is "$(tw_site_json "$GOOD" "requests=100" | jq '[.requests[] | select(.path | test("gz$"))] | length')" \
  0 "discover: ...and nothing fetched"

discover --seeds "$T_DIR/dead" --out "$T_DIR/d3" >"$T_DIR/d3.sum" 2>"$T_DIR/d3.err"
is "$?" 5 "discover: every seed ended without a page: exit 5"
ok "discover: ...saying so, with the causes" grep -q \
  'no seed could be crawled: 0 refused, 8 without a 2xx or 3xx answer (connect_refused 2, dns_nxdomain 2, robots_5xx 2, timeout 2)' \
  "$T_DIR/d3.err"
is "$(tail -1 "$T_DIR/d3.sum" | jq -c .causes.dns_nxdomain)" 2 "discover: ...and the summary still comes"

# On a terminal, the last line for a person counts them too.
printf 'http://%s:%s/\nhttp://nx.test/tty.html\n' "$GOOD" "$P" >"$T_DIR/tty-seeds"
WPFS_TOKEN=$TOKEN script -qec "'$WPFS_BIN/wpfs-discover' --gateway '$HLFS_URL' --log-level off \
  --seeds '$T_DIR/tty-seeds' --out '$T_DIR/d4' >/dev/null" /dev/null >"$T_DIR/d4.tty" 2>&1
ok "discover on a terminal: the last line counts what ended without a page" grep -q \
  "crawl log $T_DIR/d4/crawl.jsonl; 1 without a page: dns_nxdomain 1" "$T_DIR/d4.tty"

# ---- wpfs-focus --------------------------------------------------------------
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-focus" --gateway "$HLFS_URL" --log-level info \
  --seeds "$T_DIR/seeds" --out "$T_DIR/f" --topic "page words" --stall-ms 60s \
  --progress false --robots-retries 0 >"$T_DIR/f.sum" 2>"$T_DIR/f.err"
is "$?" 0 "wpfs-focus --progress false: taken, exit 0"
check_log focus "$T_DIR/f/crawl.jsonl" "$(tail -1 "$T_DIR/f.sum" | jq -c .causes)"
ok "focus: the .html.gz seed is refused with its reason" grep -q "line 2: .*(extension)" "$T_DIR/f.err"

# ---- wpfs-refresh ------------------------------------------------------------
{ cat "$T_DIR/dead"; echo "http://$GOOD:$P/"; echo "http://$GOOD:$P/"; echo "gopher://x/"; } \
  >"$T_DIR/urls"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-refresh" --gateway "$HLFS_URL" --log-level info \
  --urls "$T_DIR/urls" --out "$T_DIR/r" --rate 20 --duration-s 8 --progress false --compact-factor 0 \
  >"$T_DIR/r.sum" 2>"$T_DIR/r.err"
is "$?" 0 "wpfs-refresh --progress false: taken, exit 0"
R=$(tail -1 "$T_DIR/r.sum")
# refresh visits a page again: at least the first visit of each is named
# (the log kept whole: a compaction keeps each page's state, not every line)
for host in "${!HOST_CAUSE[@]}"; do
  n=$(causes_of "$T_DIR/r/changes.jsonl" | grep -c "^$host robots_unavailable ${HOST_CAUSE[$host]}$")
  cmp_ge "$n" 2 "refresh: the URLs of $host logged robots_unavailable with cause ${HOST_CAUSE[$host]}"
  is "$(causes_of "$T_DIR/r/changes.jsonl" | grep "^$host " | grep -vc " ${HOST_CAUSE[$host]}$")" 0 \
    "refresh: ...and with no other"
done
for c in dns_nxdomain connect_refused timeout robots_5xx; do
  cmp_ge "$(jq -r ".causes.$c // 0" <<<"$R")" 2 "refresh: the summary counts $c"
done
is "$(jq -c .input_refused <<<"$R")" '{"duplicate":1,"malformed":1}' \
  "refresh: a repeated URL and a gopher URL refused, counted by reason"
ok "refresh: ...each said with its line" grep -q "line 10: listed before (duplicate)" "$T_DIR/r.err"
ok "refresh: ...and the other" grep -q "line 11: not an http(s) URL (malformed)" "$T_DIR/r.err"

WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-refresh" --gateway "$HLFS_URL" --log-level info \
  --urls "$T_DIR/dead" --out "$T_DIR/r2" --rate 20 --duration-s 5 >"$T_DIR/r2.sum" 2>"$T_DIR/r2.err"
is "$?" 5 "refresh: no visit got an answer: exit 5"
ok "refresh: ...saying so" grep -q "no visit got an answer" "$T_DIR/r2.err"
done_testing
