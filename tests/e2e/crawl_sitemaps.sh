#!/bin/bash
# wpfs-discover reads compressed sitemaps through the gateway: robots.txt
# names a sitemap.xml.gz, a gzipped sitemap index naming another .xml.gz,
# and a gzip bomb dressed as a sitemap. The pages listed only in the
# compressed sitemaps are fetched (testweb's record), each once; the bomb
# is read up to --sitemap-max-bytes and no further, and the log says why.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
A=127.20.0.3
TOKEN=sitemap-token
CAP=4194304

echo '{ "sites": [] }' >"$T_DIR/none.json"
start_testweb --sites "$T_DIR/none.json"
B="http://$A:$TESTWEB_PORT"
urlset() { printf '<urlset>'; for p in "$@"; do printf '<url><loc>%s%s</loc></url>' "$B" "$p"; done; printf '</urlset>'; }
page='{ "kind": "body", "ctype": "text/html", "body": "<p>listed in a sitemap only</p>" }'
site=$(jq -n --arg a "$A" --arg b "$B" --arg set "$(urlset /only/1.html /only/2.html)" \
  --arg sub "$(urlset /only/3.html)" --argjson page "$page" \
  --arg idx "<sitemapindex><sitemap><loc>$B/sub.xml.gz</loc></sitemap></sitemapindex>" '
  { address: $a, pages: 0,
    robots: { sitemaps: [ "\($b)/sitemap.xml.gz", "\($b)/index.xml.gz", "\($b)/bomb.xml.gz" ] },
    paths: {
      "/": { kind: "body", ctype: "text/html", body: "<p>no links here</p>" },
      "/sitemap.xml.gz": { kind: "body", body: $set, gzip: true },
      "/index.xml.gz": { kind: "body", body: $idx, gzip: true },
      "/sub.xml.gz": { kind: "body", body: $sub, gzip: true },
      "/bomb.xml.gz": { kind: "bomb", variant: "gzip", size: "256m", gzip: true },
      "/only/*": $page } }')
tw_add_site "$site" >/dev/null
is "$(tw_curl $A /sitemap.xml.gz -s | gzip -dc | grep -o '<loc>' | wc -l)" 2 "testweb serves the .xml.gz sitemap"
tw_reset "$A"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

echo "$B/" >"$T_DIR/seeds"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --sitemap-max-bytes "$CAP" --log-level info \
  >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover exits 0"
S=$(tail -1 "$T_DIR/summary")
sum() { jq -r ".$1" <<<"$S"; }

tw_site_json "$A" "requests=1000" | jq -r '.requests[] | select(.method == "GET") | .path' \
  | sort >"$T_DIR/paths"
for p in /only/1.html /only/2.html /only/3.html; do
  is "$(grep -cx "$p" "$T_DIR/paths")" 1 "$p (listed only in a compressed sitemap) fetched once"
done
is "$(grep -c '\.xml\.gz$' "$T_DIR/paths")" 4 "each of the 4 compressed sitemaps fetched once"
is "$(sum sitemaps)" 4 "4 sitemaps read"
is "$(sum sitemaps_gzip)" 4 "...all 4 gzip data"
is "$(sum sitemap_urls)" 4 "...listing 3 pages and a sitemap"
is "$(sum sitemaps_cut)" 1 "the bomb is cut"
ok "...at --sitemap-max-bytes, and the log says so" grep -q \
  "\"msg\":\"sitemap cut after $CAP bytes of XML (--sitemap-max-bytes): the rest is not read\",\"url\":\"$B/bomb.xml.gz\"" \
  "$T_DIR/discover.log"
is "$(jq -r 'select(.sitemap == true) | .url' "$T_DIR/out/crawl.jsonl" | wc -l)" 4 \
  "the crawl log marks the 4 sitemaps"
done_testing
