#!/bin/bash
# Compression bombs: a small body sent with Content-Encoding that inflates
# to 1 GiB of zeros (the default --bomb-size), gzip and brotli, and smaller
# ones by ?size=; gzip=1 serves a body (a bomb too) as a .gz file, without
# Content-Encoding.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate sites=2
S=site1.test
GIB=1073741824

for enc in gzip br; do
  hdr="$T_DIR/h.$enc"
  wire=$(tw_curl $S "/_b/bomb/$enc" -s -D "$hdr" -o /dev/null -w '%{size_download}')
  ok "$enc: sent with Content-Encoding: $enc" grep -qi "^content-encoding: $enc" "$hdr"
  cmp_le "$wire" 2000000 "$enc: at most 2 MB on the wire"
  is "$(tr -d '\r' <"$hdr" | awk -F': ' 'tolower($1) == "content-length" {print $2}')" "$wire" \
    "$enc: with its exact Content-Length"
  decoded=$(tw_curl $S "/_b/bomb/$enc" -s --compressed | wc -c)
  is "$decoded" $GIB "$enc: inflates to 1 GiB"
  zeros=$(tw_curl $S "/_b/bomb/$enc" -s --compressed | head -c 1048576 | tr -d '\0' | wc -c)
  is "$zeros" 0 "$enc: of zeros"
done
is "$(tw_curl $S '/_b/bomb/gzip?size=8m' -s | gzip -dc | wc -c)" 8388608 "gzip ?size=8m"
ok "gzip bomb passes gzip's integrity test" bash -c \
  "curl -s 'http://127.10.0.2:$TESTWEB_PORT/_b/bomb/gzip?size=16m' | gzip -t"
is "$(tw_curl $S '/_b/bomb/br?size=3000000' -s --compressed | wc -c)" 3000000 "brotli ?size=3000000"
is "$(tw_curl $S '/_b/bomb/zip' -s -o /dev/null -w '%{http_code}')" 404 "only gzip and br"

hdr="$T_DIR/h.file"
is "$(tw_curl $S '/_b/body?body=hello%20file&gzip=1' -s -D "$hdr" | gzip -dc)" "hello file" \
  "gzip=1: the body is a gzip file"
ok "...of type application/gzip" grep -qi '^content-type: application/gzip' "$hdr"
ok "...without Content-Encoding" bash -c "! grep -qi '^content-encoding' '$hdr'"
ok "a gzipped sitemap" cmp -s <(tw_curl $S '/_b/sitemap?gzip=1' -s | gzip -dc) \
  <(tw_curl $S /sitemap.xml -s)
is "$(tw_curl $S '/_b/bomb/gzip?size=8m&gzip=1' -s -D "$hdr" | gzip -dc | wc -c)" 8388608 \
  "a gzip bomb as a file"
ok "...without Content-Encoding" bash -c "! grep -qi '^content-encoding' '$hdr'"
is "$(tw_curl $S '/_b/endless?gzip=1' -s -o /dev/null -w '%{http_code}')" 500 \
  "an endless body cannot be gzipped"
done_testing
