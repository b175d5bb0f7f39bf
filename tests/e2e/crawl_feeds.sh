#!/bin/bash
# wpfs-discover reads feeds and the hints of sitemaps, through the gateway:
#  - an RSS feed found by <link rel=alternate type=application/rss+xml>
#    and an Atom feed served as application/xml (known by its root): every
#    item's and entry's link is fetched (testweb's record), each once; a
#    feed answered with X-Robots-Tag: nofollow has none followed;
#  - a sitemap's priority, lastmod and changefreq order its URLs: with one
#    URL at the gateway at a time, the site is asked for them best first
#    (listed worst first).
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
A=127.20.0.4
S2=127.20.0.5
TOKEN=feeds-token

echo '{ "sites": [] }' >"$T_DIR/none.json"
start_testweb --sites "$T_DIR/none.json"
B="http://$A:$TESTWEB_PORT"
C="http://$S2:$TESTWEB_PORT"
rss="<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><link>$B/</link>
<item><title>one</title><link>$B/item/1.html</link></item>
<item><title>two</title><link>/item/2.html</link></item></channel></rss>"
atom="<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>
<link rel=\"self\" href=\"$B/atom.xml\"/><entry><link href=\"$B/entry/1.html\"/></entry>
<entry><link rel=\"alternate\" href=\"entry/2.html\"/><link rel=\"edit\" href=\"/edit/2\"/></entry></feed>"
nf="<rss><channel><item><link>$B/behind-nofollow.html</link></item></channel></rss>"
home="<link rel=alternate type=application/rss+xml href=/feed.rss><a href=/atom.xml>atom</a><a href=/nf.rss>nf</a>"
leaf='{ "kind": "body", "ctype": "text/html", "body": "<p>leaf</p>" }'
site=$(jq -n --arg a "$A" --arg rss "$rss" --arg atom "$atom" --arg nf "$nf" --arg home "$home" \
  --argjson leaf "$leaf" '
  { address: $a, pages: 0, robots: { sitemaps: [] },
    paths: {
      "/": { kind: "body", ctype: "text/html", body: $home },
      "/feed.rss": { kind: "body", ctype: "application/rss+xml", body: $rss },
      "/atom.xml": { kind: "body", ctype: "application/xml", body: $atom },
      "/nf.rss": { kind: "body", ctype: "application/rss+xml", body: $nf,
                   header: "X-Robots-Tag: nofollow" },
      "/item/*": $leaf, "/entry/*": $leaf, "/behind-nofollow.html": $leaf } }')
tw_add_site "$site" >/dev/null
today=$(date -u +%Y-%m-%d)
set="<urlset><url><loc>$C/sm/low.html</loc><priority>0.1</priority><changefreq>never</changefreq></url>
<url><loc>$C/sm/mid.html</loc></url>
<url><loc>$C/sm/high.html</loc><priority>1.0</priority><lastmod>$today</lastmod></url></urlset>"
site=$(jq -n --arg a "$S2" --arg c "$C" --arg set "$set" --argjson leaf "$leaf" '
  { address: $a, pages: 0, robots: { sitemaps: [ "\($c)/sitemap.xml" ] },
    paths: { "/": { kind: "body", ctype: "text/html", body: "<p>no links</p>" },
             "/sitemap.xml": { kind: "body", ctype: "application/xml", body: $set },
             "/sm/*": $leaf } }')
tw_add_site "$site" >/dev/null
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

printf '%s/\n%s/\n' "$B" "$C" >"$T_DIR/seeds"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --window 1 --log-level info \
  >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover exits 0"
S=$(tail -1 "$T_DIR/summary")
sum() { jq -r ".$1" <<<"$S"; }
paths() { tw_site_json "$1" "requests=1000" | jq -r '.requests[] | select(.method == "GET") | .path'; }
paths "$A" >"$T_DIR/paths.a"
for p in /feed.rss /atom.xml /item/1.html /item/2.html /entry/1.html /entry/2.html; do
  is "$(grep -cx "$p" "$T_DIR/paths.a")" 1 "$p fetched once"
done
ok "no rel=edit link of a feed fetched" bash -c '! grep -qx /edit/2 "$1"' _ "$T_DIR/paths.a"
ok "a feed with X-Robots-Tag: nofollow: its item not fetched" \
  bash -c '! grep -qx /behind-nofollow.html "$1"' _ "$T_DIR/paths.a"
is "$(sum feeds)" 3 "3 feeds read"
is "$(sum feed_links)" 5 "...listing 5 links (the channel's, 2 items, 2 entries; rel=self and rel=edit not links; none read in the nofollow feed)"
is "$(jq -r 'select(.feed == true) | .url' "$T_DIR/out/crawl.jsonl" | sort | tr '\n' ' ')" \
  "$B/atom.xml $B/feed.rss $B/nf.rss " "the crawl log marks the 3 feeds"

paths "$S2" | grep '^/sm/' | tr '\n' ' ' >"$T_DIR/order"
is "$(cat "$T_DIR/order")" "/sm/high.html /sm/mid.html /sm/low.html " \
  "sitemap URLs asked best first: priority 1.0 changed today, no hints, priority 0.1 never changing"
is "$(sum sitemap_hinted)" 2 "2 sitemap URLs with hints"
done_testing
