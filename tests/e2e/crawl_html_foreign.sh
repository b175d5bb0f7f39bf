#!/bin/bash
# wpfs-discover reads every link of pages real sites serve: a page whose
# 200 links follow a 3,000-element inline SVG (an icon sprite of
# <path .../> and <circle/>) and a MathML formula yields all of them, and
# all are fetched; a page nested 3,000 elements deep yields the links after
# the nesting bound too (the parser starts anew: a note names the page);
# a page past the parser's size bound (8 MiB), and one past the links a
# page may give, are counted html_cut and a warning names each, never in
# silence.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
A=127.20.0.11
TOKEN=foreign-token
LINKS=200

python3 - "$A" "$LINKS" >"$T_DIR/sites.json" <<'PY'
import json, sys
addr, links = sys.argv[1], int(sys.argv[2])
svg = ''.join('<symbol id="i%d" viewBox="0 0 24 24"><path d="M%d 0L24 24"/>'
              '<circle cx="12" cy="12" r="3"/></symbol>' % (i, i) for i in range(1000))
home = ('<!DOCTYPE html><html><head><title>docs</title></head><body>'
        '<svg xmlns="http://www.w3.org/2000/svg" style="display:none"><defs>%s</defs></svg>'
        '<p><math><mi>x</mi><mo>=</mo><mspace width="1em"/><mn>2</mn></math></p><ul>%s</ul>'
        '<a href="/deep.html">deep</a> <a href="/big.html">big</a> <a href="/many.html">many</a>'
        '</body></html>') % (
        svg, ''.join('<li><a href="/doc/p%d.html"><svg><use href="#i%d"/></svg>page %d</a>'
                     % (i, i % 1000, i) for i in range(links)))
deep = '<div>' * 3000 + '<a href="/after-deep.html">after</a>'
big = '<p>filler text of a long page</p>\n' * 250000 + '<a href="/past-big.html">lost</a>'
page = lambda body: {"kind": "body", "ctype": "text/html", "body": body}
json.dump({"sites": [{"address": addr, "pages": 0, "paths": {
  "/": page(home), "/deep.html": page(deep), "/big.html": page(big),
  "/doc/*": page("<p>a page of the manual</p>"),
  "/many.html": page('<a href="/again.html">again</a>' * 45000),
  "/again.html": page("<p>linked 45,000 times</p>"),
  "/after-deep.html": page("<p>after the deep page</p>")}}]}, sys.stdout)
PY
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

echo "http://$A:$TESTWEB_PORT/" >"$T_DIR/seeds"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --log-level info >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover exits 0"
S=$(tail -1 "$T_DIR/summary")
LOG=$T_DIR/out/crawl.jsonl
HOME_URL="http://$A:$TESTWEB_PORT/"
is "$(jq -r --arg u "$HOME_URL" 'select(.url == $u) | .links' "$LOG")" $((LINKS + 3)) \
  "the page with a 3,000-element inline SVG yields all its $((LINKS + 3)) links"
ok "...read in one piece: SVG's self-closed elements do not count as nesting" \
  bash -c '! grep "segments" "$1" | grep -q "\"url\":\"$2\""' _ "$T_DIR/discover.log" "$HOME_URL"
tw_site_json "$A" "requests=1000" | jq -r '.requests[] | select(.method == "GET") | .path' \
  >"$T_DIR/paths"
is "$(grep -c '^/doc/p[0-9]*\.html$' "$T_DIR/paths")" "$LINKS" "...every one of them fetched"
ok "the link past 3,000 nested elements is fetched" grep -qx /after-deep.html "$T_DIR/paths"
ok "...and a note names the page parsed in segments" \
  grep -q 'parsed in [0-9]* segments.*deep.html' "$T_DIR/discover.log"
is "$(jq -r .html_cut <<<"$S")" 2 "the pages past the size bound and the link cap are counted html_cut"
ok "...a warning names the first" grep -q '"level":"warn".*size bound.*big.html' "$T_DIR/discover.log"
ok "...and the second, with the references not read" \
  grep -q '"level":"warn".*40000 references): 5000 not read.*many.html' "$T_DIR/discover.log"
ok "...its link past the bound is not fetched" bash -c '! grep -qx /past-big.html "$1"' _ "$T_DIR/paths"
done_testing
