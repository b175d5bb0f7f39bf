#!/bin/bash
# wpfs-discover --path-ascend through the gateway: the directories above
# fetched URLs (/deep/x/y/p1.html: /deep/x/y/, /deep/, and /deep/x/ which
# robots.txt disallows), linked from nowhere, are fetched, each once
# although several pages share them; without the flag they are not;
# robots.txt still rules (the gateway never fetches the disallowed one),
# and a spider trap's own directories stay within the site's budget.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
A0=127.20.0.4   # crawled without --path-ascend
A=127.20.0.5    # the same site, crawled with it (the gateway's cache would hide
                # a second crawl of the first)
TOKEN=ascend-token
BUDGET=60

cat >"$T_DIR/sites.json" <<EOF2
{ "address": "$A0", "pages": 0,
  "robots": { "disallow": "/deep/x/", "allow": "/deep/x/y/" },
  "paths": {
    "/": { "kind": "body", "ctype": "text/html",
      "body": "<a href=/deep/x/y/p1.html>1</a><a href=/deep/x/y/p2.html>2</a><a href=/_b/calendar/2024/1>t</a>" },
    "/deep/*": { "kind": "body", "ctype": "text/html", "body": "<p>deep</p>" } } }
EOF2
jq --arg a "$A" '{ sites: [ ., (.address = $a) ] }' "$T_DIR/sites.json" >"$T_DIR/both.json"
start_testweb --sites "$T_DIR/both.json"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn
crawl() {  # OUT SITE ARGS...
  local out=$1; echo "http://$2:$TESTWEB_PORT/" >"$T_DIR/$out.seeds"; shift 2
  WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/$out.seeds" \
    --out "$T_DIR/$out" --site-budget "$BUDGET" --log-level warn "$@" \
    >"$T_DIR/$out.summary" 2>"$T_DIR/$out.log"
}
paths() { tw_site_json "$1" "requests=1000" | jq -r '.requests[] | select(.method == "GET") | .path'; }

crawl plain "$A0"
is "$?" 0 "without --path-ascend: exit 0"
paths "$A0" >"$T_DIR/paths.plain"
ok "...the pages were fetched" grep -qx /deep/x/y/p2.html "$T_DIR/paths.plain"
ok "...no directory above a page is fetched" bash -c '! grep -qE "^/deep/(x/(y/)?)?$" "$1"' _ "$T_DIR/paths.plain"
is "$(jq -r .ascents <(tail -1 "$T_DIR/plain.summary"))" 0 "...none offered"

crawl ascend "$A" --path-ascend
is "$?" 0 "with --path-ascend: exit 0"
S=$(tail -1 "$T_DIR/ascend.summary")
paths "$A" >"$T_DIR/paths"
for d in /deep/x/y/ /deep/ /_b/calendar/2024/ /_b/calendar/ /_b/; do
  is "$(grep -cx "$d" "$T_DIR/paths")" 1 "$d fetched once"
done
is "$(sort "$T_DIR/paths" | uniq -d | wc -l)" 0 "no path fetched twice"
ok "the disallowed directory is not fetched" bash -c '! grep -qx "/deep/x/" "$1"' _ "$T_DIR/paths"
is "$(jq -r 'select(.url | endswith("/deep/x/")) | .outcome' "$T_DIR/ascend/crawl.jsonl")" \
  robots_disallowed "...but offered, and refused by the gateway"
cmp_ge "$(jq -r .ascents <<<"$S")" 8 "ascents counted"
cmp_ge "$(jq -r .drop_site_budget <<<"$(tail -1 "$T_DIR/plain.summary")")" 1 \
  "the calendar trap reaches the site budget without ascent"
cmp_ge "$(jq -r .drop_site_budget <<<"$S")" 1 "...and with it"
cmp_le "$(wc -l <"$T_DIR/paths")" $((BUDGET + 1)) "...which holds: at most $BUDGET pages and robots.txt"
done_testing
