#!/bin/bash
# Content behaviours: validators and 304, pages that change every N
# fetches, duplicate content, spider traps and endless calendars.
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate sites=3,pages=4,change_every=3,traps=1
S=site0.test
etag() { tw_curl $S "$1" -s -D - -o /dev/null "${@:2}" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}'; }
code() { tw_curl $S "$1" -s -o /dev/null -w '%{http_code}' "${@:2}"; }

e1=$(etag /p/1.html)
ok "pages have an ETag" test -n "$e1"
is "$(code /p/1.html -H "If-None-Match: $e1")" 304 "If-None-Match with it: 304"
is "$(tw_curl $S /p/1.html -s -H "If-None-Match: $e1" -w '%{size_download}' -o /dev/null)" 0 \
  "304 has no body"
# That was the 3rd fetch; the 4th is a new version.
e4=$(etag /p/1.html)
ok "change_every=3: the 4th fetch has a new ETag" test "$e4" != "$e1"
is "$(code /p/1.html -H "If-None-Match: $e1")" 200 "the old ETag no longer matches"
lm=$(tw_curl $S /p/2.html -s -D - -o /dev/null | tr -d '\r' | awk -F': ' 'tolower($1)=="last-modified"{print $2}')
is "$lm" "Mon, 01 Jan 2024 00:00:00 GMT" "Last-Modified of version 0"
is "$(code /p/2.html -H "If-Modified-Since: $lm")" 304 "If-Modified-Since equal: 304"
is "$(code /p/2.html -H 'If-Modified-Since: Sun, 31 Dec 2023 23:00:00 GMT')" 200 "older date: 200"
r=$(tw_site_json $S | jq -c '[.requests[] | select(.ims != null)][0]')
is "$(jq -r .ims <<<"$r")" "$lm" "the record keeps If-Modified-Since"
is "$(tw_site_json $S | jq -r '[.requests[] | select(.inm != null)][0].inm')" "$e1" \
  "and If-None-Match"

v=()
for i in 1 2 3 4 5; do v+=("$(tw_curl $S '/_b/change?every=2' -s | head -1)"); done
is "${v[0]}|${v[1]}|${v[2]}|${v[4]}" \
  "testweb: /_b/change version 0|testweb: /_b/change version 0|testweb: /_b/change version 1|testweb: /_b/change version 2" \
  "/_b/change?every=2 changes every 2 fetches"
ec=$(etag '/_b/change?every=100')
is "$(code '/_b/change?every=100' -H "If-None-Match: $ec")" 304 "and answers 304 while unchanged"

is "$(tw_curl $S /_b/dup/a -s)" "$(tw_curl $S /_b/dup/b/c?x=1 -s)" "/_b/dup: one body under every path"
is "$(etag /_b/dup/a)" "$(etag /_b/dup/zzz)" "with one ETag"

home=$(tw_curl $S / -s)
ok "traps=1: the home page links into the trap" grep -q 'href="/_b/trap/"' <<<"$home"
ok "and into the calendar" grep -q 'href="/_b/calendar/2024/1"' <<<"$home"
path=/_b/trap/
for i in $(seq 1 30); do
  page=$(tw_curl $S "$path" -s)
  next=$(grep -o 'href="[a-z]/"' <<<"$page" | head -1 | cut -d'"' -f2)
  [ -n "$next" ] || break
  path="$path$next"
done
is "$(tr -cd / <<<"$path" | wc -c)" 33 "the trap goes 30 levels deep and further"
ok "each level links three deeper ones" test "$(grep -c 'href="[abc]/"' <<<"$page")" = 3
p=/_b/calendar/2024/1
for i in $(seq 1 24); do
  p=$(tw_curl $S "$p" -s | grep -o 'href="[^"]*">next month' | cut -d'"' -f2)
done
is "$p" "/_b/calendar/2026/1" "the calendar's next links go on (24 months)"
is "$(tw_curl $S /_b/calendar/2024/2 -s | grep -c '/_b/calendar/2024/2/')" 29 "a leap February has 29 day links"
is "$(code /_b/calendar/2024/13)" 404 "month 13 does not exist"
done_testing
