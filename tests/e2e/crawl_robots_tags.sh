#!/bin/bash
# X-Robots-Tag and meta robots through the gateway and wpfs-discover:
# the gateway lists the directives that apply to its own agent in the
# result (robots_tags); a page with nofollow or none (the header, sent
# once or twice, or meta robots, or a meta naming the crawler's agent)
# has none of its links followed, testweb's record says so from the
# server's side; a noindex page is marked on its crawl log line; a
# directive for another agent changes nothing, and a gateway whose
# agent is that other one reads it; the WARC metadata record of each page
# lists the directives too. wpfs-refresh marks its lines and records alike.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
SITE=127.20.0.1
TOKEN=xrobots-token
h() { printf '<a href=/%s.html>x</a>' "$@"; }
cat >"$T_DIR/sites.json" <<EOF
{ "sites": [ { "address": "$SITE", "pages": 0, "ctype": "text/html",
  "paths": {
    "/": { "body": "$(h nf-header ni-header ni-meta agent-other agent-ours two meta-agent)" },
    "/nf-header.html": { "header": "X-Robots-Tag: nofollow", "body": "$(h behind-nf)" },
    "/ni-header.html": { "header": "X-Robots-Tag: noindex", "body": "$(h after-ni)" },
    "/ni-meta.html": { "body": "<meta name=robots content='noindex'>$(h after-meta)" },
    "/agent-other.html": { "header": "X-Robots-Tag: otherbot: nofollow", "body": "$(h behind-other)" },
    "/agent-ours.html": { "header": "X-Robots-Tag: otherbot: noindex, wpfs: nofollow", "body": "$(h behind-ours)" },
    "/two.html": { "header": "X-Robots-Tag: noarchive\\nX-Robots-Tag: none", "body": "$(h behind-two)" },
    "/meta-agent.html": { "body": "<meta name=WPFS content=nofollow><meta name=otherbot content=noindex>$(h behind-meta-agent)" },
    "/*": { "body": "<p>leaf</p>" } } } ] }
EOF
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

# The gateway's result: what applies to its agent (wpfs/0.1: "wpfs").
GW_TOKEN=$TOKEN
tags() { gw POST /v1/fetch "{\"url\": \"http://$SITE:$TESTWEB_PORT/$1\", \"wait_ms\": 10000}" |
           jq -c '.robots_tags // []'; }
is "$(tags nf-header.html)" '["nofollow"]' "X-Robots-Tag: nofollow in the result"
is "$(tags two.html)" '["noindex","nofollow","noarchive"]' "two X-Robots-Tag lines, none expanded"
is "$(tags agent-ours.html)" '["nofollow"]' "wpfs: nofollow applies to the gateway's agent, otherbot: noindex not"
is "$(tags agent-other.html)" '[]' "otherbot: nofollow does not apply to wpfs"
is "$(tags ni-meta.html)" '[]' "meta robots is the crawler's to read, not in robots_tags"

# A gateway whose agent is otherbot reads the other scopes.
start_hlfs b --token "$TOKEN" --user-agent "otherbot/2.0" --min-delay-ms 0 --delay-factor 0 \
  --log-level warn
is "$(tags agent-other.html)" '["nofollow"]' "otherbot's gateway: otherbot: nofollow applies"
is "$(tags agent-ours.html)" '["noindex"]' "otherbot's gateway: otherbot: noindex, not wpfs: nofollow"
HLFS_URL="http://127.0.0.1:$HLFS_PORT_a"

OUT=$T_DIR/out
echo "http://$SITE:$TESTWEB_PORT/" >"$T_DIR/seeds"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$OUT" --scope any --max-age-s 0 --sitemaps false --log-level warn \
  >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover exits 0"
S=$(tail -1 "$T_DIR/summary")
LOG=$OUT/crawl.jsonl
tw_site_json "$SITE" "requests=1000" | jq -r '.requests[] | select(.method == "GET") | .path' \
  >"$T_DIR/paths"
asked() { grep -qx "/$1.html" "$T_DIR/paths"; }
for p in behind-nf behind-ours behind-two behind-meta-agent; do
  ok "/$p.html not fetched (its linker said nofollow)" bash -c '! grep -qx "$1" "$2"' _ \
    "/$p.html" "$T_DIR/paths"
done
for p in after-ni after-meta behind-other; do
  ok "/$p.html fetched (noindex, or another agent's nofollow, follows links)" asked "$p"
done
robots() { jq -c --arg u "http://$SITE:$TESTWEB_PORT/$1" 'select(.url == $u) | .robots // []' "$LOG"; }
is "$(robots ni-header.html)" '["noindex"]' "X-Robots-Tag: noindex on the crawl log line"
is "$(robots ni-meta.html)" '["noindex"]' "meta robots noindex on the crawl log line"
is "$(robots two.html)" '["noindex","nofollow","noarchive"]' "both header lines on the crawl log line"
is "$(robots meta-agent.html)" '["nofollow"]' "meta name=wpfs for this crawler, name=otherbot not"
is "$(robots agent-other.html)" '[]' "another agent's directive: nothing marked"
is "$(robots after-ni.html)" '[]' "a plain page: nothing marked"
# The WARC metadata record of each page says the same (warcio reads it).
warc_meta() {  # DIR URL-PATH: the "robots" field of the page's metadata record
  (cd "$WPFS_ROOT" && node tests/e2e/crawl_warc_list.mjs "$1"/*.warc.gz) 2>/dev/null |
    jq -r --arg u "http://$SITE:$TESTWEB_PORT/$2" \
      'select(.type == "metadata" and .uri == $u) | .fields.robots // "-"' | sort -u
}
is "$(warc_meta "$OUT/warc" ni-header.html)" "noindex" "WARC metadata record: robots: noindex"
is "$(warc_meta "$OUT/warc" two.html)" "noindex, nofollow, noarchive" \
  "WARC metadata record: both header lines"
is "$(warc_meta "$OUT/warc" meta-agent.html)" "nofollow" "WARC metadata record: meta name=wpfs"
is "$(warc_meta "$OUT/warc" after-ni.html)" "-" "WARC metadata record of a plain page: no robots line"
is "$(jq -r .noindex <<<"$S")" 3 "summary: 3 pages noindex"
is "$(jq -r .nofollow <<<"$S")" 4 "summary: 4 pages nofollow"

# wpfs-refresh follows no links: it marks its lines alike (the change log
# not compacted: 120 visits of 4 pages would rewrite it as state lines).
for p in ni-header two meta-agent agent-other; do
  echo "http://$SITE:$TESTWEB_PORT/$p.html"
done >"$T_DIR/urls"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-refresh" --gateway "$HLFS_URL" --urls "$T_DIR/urls" \
  --out "$T_DIR/refresh" --rate 20 --duration-s 6 --log-level warn --compact-factor 0 \
  >"$T_DIR/refresh.summary" 2>"$T_DIR/refresh.log"
is "$?" 0 "wpfs-refresh exits 0"
rlog() { jq -c --arg u "http://$SITE:$TESTWEB_PORT/$1" 'select(.url == $u and .status == 200) | .robots // []' \
           "$T_DIR/refresh/changes.jsonl" | sort -u | tr '\n' ' '; }
is "$(rlog ni-header.html)" '["noindex"] ' "refresh: X-Robots-Tag: noindex on its lines"
is "$(rlog two.html)" '["noindex","nofollow","noarchive"] ' "refresh: both header lines"
is "$(rlog meta-agent.html)" '["nofollow"] ' "refresh: meta name=wpfs"
is "$(rlog agent-other.html)" '[] ' "refresh: another agent's directive, nothing"
is "$(warc_meta "$T_DIR/refresh" ni-header.html)" "noindex" \
  "refresh: a metadata record with robots: noindex beside the response"
is "$(warc_meta "$T_DIR/refresh" two.html)" "noindex, nofollow, noarchive" \
  "refresh: a metadata record with both header lines"
is "$(warc_meta "$T_DIR/refresh" agent-other.html)" "" "refresh: no metadata record without any"
done_testing
