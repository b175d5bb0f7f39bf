#!/bin/bash
# timeout: 90
# The page itself for curl: POST /v1/fetch and GET /v1/pages answer the
# page's bytes with its Content-Type when asked (format=raw, or an Accept
# that prefers another type to JSON), the result's facts in X-Wpfs-*
# headers; a result without a page is a 502 no-page problem. JSON stays the
# default (curl's */*, generated clients).
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_testweb --generate sites=2,pages=12
start_llfs
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0
T=devtoken-123
raw() {  # ACCEPT QUERY URL [MAX_AGE]: body in $T_DIR/raw.body, headers in $T_DIR/raw.head; prints status
  curl -s -D "$T_DIR/raw.head" -o "$T_DIR/raw.body" -w '%{http_code}' -H "Authorization: Bearer $T" \
    -H "Accept: $1" -H 'Content-Type: application/json' \
    --data-binary "{\"url\": \"$3\", \"max_age_s\": ${4:-0}}" "$HLFS_URL/v1/fetch$2"
}
hdr() { tr -d '\r' <"$T_DIR/raw.head" | awk -v h="$(echo "$1" | tr A-Z a-z)" -F': ' 'tolower($1) == h { print $2 }'; }
direct_md5() { curl -s "$1" | md5sum; }

u=$(tw_url 127.10.0.1 /p/1.html)
is "$(raw 'text/html' '' "$u")" 200 "Accept: text/html: 200"
is "$(md5sum <"$T_DIR/raw.body")" "$(direct_md5 "$u")" "the body is the page's bytes"
is "$(hdr Content-Type)" "$(curl -s -o /dev/null -w '%{content_type}' "$u")" "with the page's Content-Type"
# a site's HTML served from the API's origin: no script of it runs there,
# and no browser takes it for another type than the site said
is "$(hdr Content-Security-Policy)" sandbox "Content-Security-Policy: sandbox"
is "$(hdr X-Content-Type-Options)" nosniff "X-Content-Type-Options: nosniff"
is "$(hdr X-Wpfs-Outcome)/$(hdr X-Wpfs-Status)/$(hdr X-Wpfs-Url)" "ok/200/$u" "outcome, status and URL in headers"
ok "the request id in X-Wpfs-Id" test -n "$(hdr X-Wpfs-Id)"
ok "the age in X-Wpfs-Age" test -n "$(hdr X-Wpfs-Age)"
is "$(raw 'text/html' '' "$u" 3600)/$(hdr X-Wpfs-Outcome)" "200/cached" "asked again: from the cache, raw"
is "$(md5sum <"$T_DIR/raw.body")" "$(direct_md5 "$u")" "same bytes from the cache"

# every padding of base64 comes back exact
bad=0
for i in 2 3 4 5 6 7; do
  v=$(tw_url 127.10.0.2 "/p/$i.html")
  raw '*/*' '?format=raw' "$v" >/dev/null
  [ "$(md5sum <"$T_DIR/raw.body")" = "$(direct_md5 "$v")" ] || bad=$((bad + 1))
done
is "$bad" 0 "format=raw: six pages of different sizes, byte for byte"

# negotiation
raw '*/*' '' "$u" 3600 >/dev/null
is "$(hdr Content-Type)/$(jq -r .outcome "$T_DIR/raw.body")" "application/json/cached" "*/*: JSON"
raw 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' '' "$u" 3600 >/dev/null
is "$(hdr Content-Type | cut -d';' -f1)" "text/html" "a browser's Accept: the page"
raw 'application/json, text/html;q=0.5' '' "$u" 3600 >/dev/null
is "$(hdr Content-Type)" "application/json" "JSON preferred: JSON"
raw 'text/html' '?format=json' "$u" 3600 >/dev/null
is "$(hdr Content-Type)" "application/json" "format=json wins over Accept"
is "$(raw '*/*' '?format=html' "$u")/$(jq -r .field "$T_DIR/raw.body")" "400/format" \
  "format=html: 400 naming format"

# no page: 502 no-page with the result's facts
is "$(raw 'text/html' '' "$(tw_url 127.10.0.1 /private/x)")" 502 "a disallowed URL: 502"
is "$(jq -r '.type + " " + .outcome' "$T_DIR/raw.body")/$(hdr X-Wpfs-Outcome)" \
  "urn:wpfs:problem:no-page robots_disallowed/robots_disallowed" "no-page, with the outcome"
is "$(raw 'text/html' '' http://127.10.0.1:1/x)/$(jq -r '.status' "$T_DIR/raw.body")" "502/502" \
  "a fetch error: the problem's status stays 502 (the site's would be site_status)"

# GET /v1/pages
code=$(curl -s -D "$T_DIR/raw.head" -o "$T_DIR/raw.body" -w '%{http_code}' -H "Authorization: Bearer $T" \
  -H 'Accept: text/html' "$HLFS_URL/v1/pages?url=$(jq -rn --arg u "$u" '$u|@uri')")
is "$code/$(md5sum <"$T_DIR/raw.body")" "200/$(direct_md5 "$u")" "GET /v1/pages: the stored bytes"
is "$(hdr X-Wpfs-Outcome)" ok "with its outcome"
is "$(hdr Content-Security-Policy)/$(hdr X-Content-Type-Options)" sandbox/nosniff \
  "GET /v1/pages raw: sandboxed, not sniffed"
is "$(hdr Content-Type | cut -d';' -f1)" text/html "and the page's own Content-Type"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $T" \
  "$HLFS_URL/v1/pages?url=$(jq -rn --arg u "$(tw_url 127.10.0.1 /p/11.html)" '$u|@uri')&format=raw")
is "$code" 404 "a page never fetched: 404"
done_testing
