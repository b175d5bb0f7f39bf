#!/bin/bash
# testweb: naming of the generated world, pages and their links, duplicate
# URLs, routing by Host and by local address, determinism, clean exit.
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
TW=$WPFS_BIN/testweb

ok "--help names the port files" bash -c "'$TW' --help | grep -q -- --control-port-file"
"$TW" --generate sitez=3 --print-zone >/dev/null 2>"$T_DIR/err"
is "$?" 2 "a bad generator option is refused"
ok "and the reason names it" grep -q sitez "$T_DIR/err"

sed -n '/^<!-- testweb --print-docs -->$/,/^<!-- end testweb --print-docs -->$/p' \
  "$WPFS_ROOT/docs/testweb.md" | sed '1d;$d' >"$T_DIR/doc"
"$TW" --print-docs >"$T_DIR/gen"
ok "docs/testweb.md has the tables the code has (testweb --print-docs)" \
  cmp -s "$T_DIR/doc" "$T_DIR/gen"

zone=$("$TW" --generate sites=300 --print-zone)
is "$(wc -l <<<"$zone")" 300 "--print-zone: one line per site"
is "$(sed -n 1p <<<"$zone")" "site0.test 127.10.0.1" "site 0 is 127.10.0.1"
is "$(sed -n 250p <<<"$zone")" "site249.test 127.10.0.250" "site 249 is 127.10.0.250"
is "$(sed -n 251p <<<"$zone")" "site250.test 127.10.1.1" "site 250 is 127.10.1.1"
is "$("$TW" --generate sites=64000 --print-zone | tail -1)" "site63999.test 127.10.255.250" \
  "site 63999 is 127.10.255.250"

start_testweb --generate sites=20,pages=10,links=5,cross=0.3,seed=42,dups=0.5
P=$TESTWEB_PORT
page=$(tw_curl site3.test /p/4.html -s)
ok "a generated page has its title" grep -q "<title>site3.test page 4</title>" <<<"$page"
is "$(grep -c '<a href=' <<<"$page")" 6 "five links and the next page"
ok "the next page is linked" grep -q 'href="/p/5.html"' <<<"$page"
is "$(curl -s -H 'Host: site3.test' "http://127.0.0.1:$P/p/4.html")" "$page" \
  "the same page by Host name on 127.0.0.1"
is "$(curl -s "http://127.10.0.4:$P/p/4.html")" "$page" "the same page by the site's address"
is "$(curl -s -H 'Host: 127.10.0.4' "http://127.0.0.1:$P/p/4.html")" "$page" \
  "the same page by an address literal in Host"
is "$(tw_curl site3.test /p/4 -s)" "$page" "duplicate URL /p/4"
is "$(tw_curl site3.test '/p/4.html?ref=77' -s)" "$page" "duplicate URL with a query"
is "$(tw_curl site3.test /index.html -s)" "$(tw_curl site3.test / -s)" "/index.html is /"
is "$(tw_curl site3.test /p/10.html -s -o /dev/null -w '%{http_code}')" 404 "page 10 of 10 is 404"
ct=$(tw_curl site3.test / -s -o /dev/null -w '%{content_type}')
is "$ct" "text/html; charset=utf-8" "pages are HTML"
sm=$(tw_curl site3.test /sitemap.xml -s)
is "$(grep -c '<loc>' <<<"$sm")" 10 "the sitemap lists every page"
ok "with absolute URLs on the port" grep -q "<loc>http://site3.test:$P/p/9.html</loc>" <<<"$sm"

code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: nosuch.test' "http://127.0.0.1:$P/")
is "$code" 404 "an unknown host gets 404"
is "$(tw_stats | jq .unknown_site)" 1 "and is counted as unknown_site"
is "$(tw_site_field site3.test .request_count)" 11 "site3 saw its 11 requests"
is "$(tw_site_field site4.test .request_count)" 0 "site4 saw none"

# Cross-site links point into the world, on the sites' port.
all=""
for i in 0 1 2 3 4 5 6 7 8 9; do all+=$(tw_curl site5.test "/p/$i.html" -s); done
cross=$(grep -o "href=\"http://site[0-9]*\.test:$P/[^\"]*\"" <<<"$all" | wc -l)
cmp_ge "$cross" 3 "cross-site links exist (cross=0.3)"
ok "none points outside the world" bash -c \
  "! grep -o 'href=\"http[^\"]*\"' <<<'$all' | grep -v 'site[0-9]*\.test:$P/'"

# Same seed, same world; another seed, another world (ports pinned in links).
start_testweb --generate sites=5,pages=5,seed=9 --link-port 8080
a=$(tw_curl site2.test /p/3.html -s)
start_testweb --generate sites=5,pages=5,seed=9 --link-port 8080
is "$(tw_curl site2.test /p/3.html -s)" "$a" "same seed: the same page in another process"
start_testweb --generate sites=5,pages=5,seed=10 --link-port 8080
ok "another seed: another page" test "$(tw_curl site2.test /p/3.html -s)" != "$a"

stop_testweb
is "$?" 0 "SIGTERM: clean exit"
ok "every log line is JSON" bash -c "jq -e -s 'length > 0' '$TESTWEB_LOG' >/dev/null"
ok "the log says it stopped" grep -q '"msg":"stopped after' "$TESTWEB_LOG"
done_testing
