#!/bin/bash
# Connections opened per site, counted by the gateway and summed by
# wpfs-discover, against testweb's own count of the connections each site
# served. Sites that keep connections alive cost one each: robots.txt,
# then every page on the same connection. A site that closes every
# connection (Connection: close on robots.txt and each page) costs one
# per request. GET /v1/sites/{site} says connections_opened, each result
# new_connection and site_connections (a request robots.txt refuses, the
# count alone), /metrics
# hlfs_connections_opened_total, and the crawl summary connections:
# {hosts, opened, max_per_host, hosts_over_one}.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
SITES=3
PAGES=6
CLOSER=127.20.0.1   # closes every connection; its robots.txt redirects twice
POINTER=127.20.0.2  # robots.txt redirects to HOPPER's
HOPPER=127.20.0.3
DENIER=127.20.0.4   # robots.txt disallows everything: no page fetched
TOKEN=conn-token
CLOSE='"header": "Connection: close"'
page() { echo "{ \"kind\": \"body\", \"ctype\": \"text/html\", $CLOSE, \"body\": \"$1\" }"; }
cat >"$T_DIR/sites.json" <<EOF
{ "generate": "sites=$SITES,pages=$PAGES,links=3,cross=0,seed=5",
  "sites": [ { "address": "$CLOSER", "pages": 0, "robots": { "n": 2, $CLOSE },
    "paths": { "/": $(page '<a href=/a.html>a</a><a href=/b.html>b</a><a href=/c.html>c</a>'),
      "/a.html": $(page '<p>a</p>'), "/b.html": $(page '<p>b</p>'),
      "/c.html": $(page '<p>c</p>') } } ] }
EOF
start_testweb --sites "$T_DIR/sites.json"
tw_add_site "{ \"address\": \"$HOPPER\", \"pages\": 0 }" >/dev/null
tw_add_site "{ \"address\": \"$DENIER\", \"pages\": 3, \"robots\": { \"disallow\": \"/\" } }" >/dev/null
tw_add_site "{ \"address\": \"$POINTER\", \"pages\": 0,
  \"robots\": { \"n\": 1, \"to\": \"http://$HOPPER:$TESTWEB_PORT/robots.txt\" },
  \"paths\": { \"/\": { \"kind\": \"body\", \"ctype\": \"text/html\", \"body\": \"<p>home</p>\" } } }" \
  >/dev/null
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
echo "http://$CLOSER:$TESTWEB_PORT/" >>"$T_DIR/seeds"
echo "http://$POINTER:$TESTWEB_PORT/" >>"$T_DIR/seeds"
echo "http://$DENIER:$TESTWEB_PORT/" >>"$T_DIR/seeds"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --scope host --log-level info >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover crawls the sites"
S=$(tail -1 "$T_DIR/summary")
sum() { jq -r ".connections.$1" <<<"$S"; }

# The gateway's count of each site against testweb's.
export GW_TOKEN=$TOKEN
site_conns() { gw GET "/v1/sites/$1" | jq -r .connections_opened; }
tw_conns() { tw_site_field "$1" .connections; }
total=0
for i in $(seq 0 $((SITES - 1))); do
  h=site$i.test
  cmp_ge "$(tw_site_field "$h" .request_count)" $((PAGES + 1)) "$h: robots.txt and its pages asked"
  is "$(tw_conns "$h")" 1 "$h keeps its connection alive: testweb served it one"
  is "$(site_conns "$h")" 1 "...and GET /v1/sites/$h says connections_opened 1"
  total=$((total + 1))
done
creq=$(tw_site_field "$CLOSER" .request_count)
cmp_ge "$creq" 7 "the closing site: robots.txt, its 2 redirects and 4 pages asked"
is "$(tw_conns "$CLOSER")" "$creq" "...each on a connection of its own (testweb)"
is "$(site_conns "$CLOSER")" "$creq" "...and GET /v1/sites/$CLOSER counts them all"
total=$((total + creq))
# robots.txt's redirect to another site: a connection of that site's
for h in "$POINTER" "$HOPPER"; do
  is "$(tw_conns "$h")" 1 "$h: testweb served one connection"
  is "$(site_conns "$h")" 1 "...and GET /v1/sites/$h counts it"
done
total=$((total + 2))
# robots.txt alone: its pages are robots_disallowed, the host counted all the same
is "$(tw_site_field "$DENIER" .request_count)" 1 "$DENIER: robots.txt only"
is "$(site_conns "$DENIER")" 1 "...and GET /v1/sites/$DENIER counts its connection"
total=$((total + 1))

# The crawl summary: the largest count each host's results gave.
is "$(sum hosts)" $((SITES + 3)) \
  "summary: connections.hosts, every site crawled (one robots.txt disallowed whole)"
is "$(sum opened)" $((total - 1)) \
  "summary: connections.opened, the crawled sites' counts summed ($((total - 1)))"
is "$(sum max_per_host)" "$creq" "summary: connections.max_per_host, the closing site's"
is "$(sum hosts_over_one)" 1 "summary: connections.hosts_over_one, only the closing site"
is "$(sum untracked)" 0 "summary: no host left untracked"
ok "the metric hlfs_connections_opened_total counts them too" \
  grep -qx "hlfs_connections_opened_total $total" <(curl -s "$HLFS_URL/metrics")

# Each result: whether it opened a connection, and the site's count after.
# (max_age_s 0: fetched again; a page with validators is revalidated, 304)
fetch() {
  gw POST /v1/fetch "{\"url\": \"$1\", \"max_age_s\": 0, \"wait_ms\": 20000}" \
    | jq -c '{new_connection, site_connections}'
}
is "$(fetch "http://$CLOSER:$TESTWEB_PORT/a.html")" \
  "{\"new_connection\":true,\"site_connections\":$((creq + 1))}" \
  "a fetch from the closing site opens a connection, counted in its result"
is "$(fetch "http://site0.test:$TESTWEB_PORT/")" \
  '{"new_connection":false,"site_connections":1}' \
  "a fetch from a kept-alive site reuses its connection"
is "$(tw_conns site0.test)" 1 "...testweb agrees"
is "$(gw POST /v1/fetch "{\"url\": \"http://$DENIER:$TESTWEB_PORT/p/1.html\", \"wait_ms\": 20000}" |
      jq -c '{outcome, new_connection, site_connections}')" \
  '{"outcome":"robots_disallowed","new_connection":null,"site_connections":1}' \
  "a request robots.txt refuses: no fetch, the site's count all the same"
is "$(gw GET /v1/sites/none.test | jq -c .connections_opened)" 0 "a site never seen: 0"
# On a terminal, the last line says them too: a crawl of the closing site
# again (its results carry the site's count, fetched or not).
echo "http://$CLOSER:$TESTWEB_PORT/" >"$T_DIR/seeds2"
WPFS_TOKEN=$TOKEN script -qec "'$WPFS_BIN/wpfs-discover' --gateway '$HLFS_URL' --log-level off \
  --seeds '$T_DIR/seeds2' --out '$T_DIR/out2' >/dev/null" /dev/null >"$T_DIR/tty" 2>&1
n=$(site_conns "$CLOSER")
ok "on a terminal, the last line says the connections ($n)" grep -q \
  "; $n connections opened to 1 host (at most $n to one)" "$T_DIR/tty"
done_testing
