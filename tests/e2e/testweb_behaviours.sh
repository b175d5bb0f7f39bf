#!/bin/bash
# testweb behaviours by path: any status, redirects and loops, closing and
# resetting mid-body, endless bodies and heads, malformed heads, and bad
# requests. The bytes on the wire are checked, not only a client's view.
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate sites=4,pages=3
S=site1.test A=127.10.0.2 P=$TESTWEB_PORT

# raw PATH [MAX]: the response bytes exactly as testweb sent them.
raw() {
  exec 3<>"/dev/tcp/$A/$P" || return 1
  printf 'GET %s HTTP/1.1\r\nHost: %s\r\n\r\n' "$1" "$S" >&3
  timeout 3 head -c "${2:-100000}" <&3
  exec 3<&- 3>&-
}
code() { tw_curl $S "$1" -s -o /dev/null -w '%{http_code}' "${@:2}"; }

is "$(code '/_b/status/503?retry_after=7')" 503 "any status: 503"
ok "with Retry-After" bash -c "curl -s -D - -o /dev/null 'http://$A:$P/_b/status/503?retry_after=7' | grep -q $'^Retry-After: 7\r'"
is "$(code /_b/status/418)" 418 "any status: 418"
ra() { tw_curl $S "$1" -s -D - -o /dev/null | tr -d '\r' | awk '/^HTTP/ { s = $2 } /^Retry-After:/ { r = $2 } END { print s "/" r }'; }
is "$(for i in 1 2 3; do ra '/_b/flaky/2?retry_after=1'; done | paste -sd' ')" "503/1 503/1 200/" \
  "flaky/2: 503 with Retry-After twice, then 200 without"
is "$(for i in 1 2; do code '/_b/flaky/1?status=429'; echo; done | paste -sd' ')" "429 200" \
  "flaky/1?status=429: 429 once, then 200 (counted per query)"
is "$(code '/_b/body?status=500&size=3')" 500 "status= on any kind"
is "$(tw_curl $S /_b/status/204 -s -w '%{size_download}')" 0 "204 has no body"

for c in 301 302 303 307 308; do
  out=$(tw_curl $S "/_b/redirect/$c?to=/p/2.html" -s -o /dev/null -w '%{http_code} %{redirect_url}')
  is "$out" "$c http://$S:$P/p/2.html" "redirect $c with its Location"
done
to="http://site2.test:$P/p/1.html"
out=$(tw_curl $S "/_b/redirect/301?to=$to" -sL --resolve "site2.test:$P:127.10.0.3" \
  -o /dev/null -w '%{http_code} %{num_redirects}')
is "$out" "200 1" "a redirect to another site is followed there"
is "$(tw_site_field site2.test .request_count)" 1 "and the other site records it"
out=$(tw_curl $S '/_b/chain/4' -sL -o /dev/null -w '%{http_code} %{num_redirects}')
is "$out" "200 4" "a chain of 4 redirects, then a body"
tw_reset
tw_curl $S '/_b/loop/0?n=3' -sL --max-redirs 20 -o /dev/null
is "$?" 47 "a redirect loop exhausts the client"
is "$(tw_site_field $S .request_count)" 21 "after 21 requests"
is "$(tw_site_field $S '[.requests[].path] | unique | length')" 3 "over 3 paths"

out=$(tw_curl $S '/_b/body?size=100000&close_after=5000' -s -o /dev/null -w '%{size_download}')
is "$?:$out" "18:5000" "close_after=5000: the body stops at 5000 bytes (partial file)"
out=$(tw_curl $S '/_b/body?size=100000&reset_after=7000' -s -o /dev/null -w '%{size_download}' 2>"$T_DIR/err")
is "$?:$out" "56:7000" "reset_after=7000: 7000 bytes, then a reset"
is "$(tw_site_field $S '[.requests[] | .outcome] | .[-2:] | join(",")')" "closed,reset" \
  "the record knows which was closed and which reset"
is "$(tw_stats | jq .cut)" 2 "cut counter"

hdr="$T_DIR/h"
out=$(tw_curl $S /_b/endless -s -m 1 -D "$hdr" -o /dev/null -w '%{size_download}')
is "$?" 28 "endless chunked body: the client gives up"
cmp_ge "$out" 1000000 "after more than a megabyte"
ok "in chunked coding" grep -qi '^transfer-encoding: chunked' "$hdr"
out=$(tw_curl $S '/_b/endless?chunked=0' -s -m 1 -D "$hdr" -o /dev/null -w '%{size_download}')
cmp_ge "$out" 1000000 "endless body without length"
ok "has neither Content-Length nor chunked coding" bash -c "! grep -qiE '^(content-length|transfer-encoding)' '$hdr'"
n=$(raw /_b/endless-headers 300000 | grep -c '^X-Endless-')
cmp_ge "$n" 4000 "endless headers: thousands of header lines and no end"
tw_curl $S /_b/endless -s -m 3 -o /dev/null &
hog=$!
sleep 0.5
t=$(tw_curl site2.test /p/1.html -s -o /dev/null -w '%{time_total}')
cmp_le "$(awk -v t="$t" 'BEGIN { printf "%d", t * 1000 }')" 300 \
  "an endless download does not starve other clients"
wait $hog
for i in 1 2 3; do raw /_b/endless 100000 >/dev/null; done
is "$(code /p/1.html)" 200 "testweb survives clients that leave mid-body"

check_raw() {  # variant expected-bytes
  raw "/_b/malformed/$1" >"$T_DIR/got"
  printf '%b' "$2" >"$T_DIR/want"
  ok "malformed/$1 sends exactly its bytes" cmp -s "$T_DIR/got" "$T_DIR/want"
}
check_raw status-line 'HTTP/1.1 2OO OK\r\nContent-Length: 6\r\n\r\nhello\n'
check_raw no-status 'hello, no status line and no headers\n'
check_raw no-colon 'HTTP/1.1 200 OK\r\nX-Broken header without a colon\r\nContent-Length: 6\r\n\r\nhello\n'
check_raw bad-length 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\nhello\n'
check_raw two-lengths 'HTTP/1.1 200 OK\r\nContent-Length: 6\r\nContent-Length: 9\r\n\r\nhello\n'
check_raw short-body 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly 23 bytes, then EOF'
check_raw bad-chunk 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'
check_raw lf-only 'HTTP/1.1 200 OK\nContent-Length: 6\nContent-Type: text/plain\n\nhello\n'
len=$(raw '/_b/malformed/huge-header?size=200000' 300000 | awk '/^X-Huge: /{print length($0)}')
is "$len" 200009 "huge-header: one header line of 200000 letters"
tw_curl $S /_b/malformed/no-colon -s -o /dev/null
is "$?" 8 "a client rejects the header line without a colon"

big=$(head -c 20000 /dev/zero | tr '\0' a)
is "$(code / -H "X-Big: $big")" 431 "a request head over 16 KiB gets 431"
is "$(tw_stats | jq .too_large)" 1 "counted as too_large"
exec 3<>"/dev/tcp/$A/$P"
printf 'HELLO\r\n\r\n' >&3
ok "a broken request line gets 400" bash -c "timeout 3 head -c 12 <&3 | grep -q 'HTTP/1.1 400'"
exec 3<&- 3>&-
is "$(tw_stats | jq .bad_requests)" 1 "counted as bad_requests"

head -c 50000 /dev/zero >"$T_DIR/body"
tw_reset
curl --resolve "$S:$P:$A" -s -o /dev/null --data-binary @"$T_DIR/body" "http://$S:$P/p/1.html" \
  --next --resolve "$S:$P:$A" -s -o /dev/null "http://$S:$P/p/2.html"
j=$(tw_site_json $S)
is "$(jq -r '[.requests[] | .method + " " + (.status|tostring)] | join(",")' <<<"$j")" \
  "POST 200,GET 200" "a request body is skipped on a kept-alive connection"
is "$(jq .connections <<<"$j")" 1 "both on one connection"
done_testing
