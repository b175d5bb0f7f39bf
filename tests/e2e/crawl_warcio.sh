#!/bin/bash
# WARC output read back by an independent reader (warcio, from npm): every
# record written is found at its offset with its type, URI, status and
# payload digest; every block and payload digest matches the content;
# each file starts with a warcinfo record, which every record of the file
# names (WARC-Warcinfo-ID), across rotation; every response and revisit
# has its request record (WARC-Concurrent-To), pages given one have their
# metadata record (outlinks, robots directives); revisits carry WARC-Refers-To-Target-URI,
# -Refers-To-Date and, when the original's id is known, WARC-Refers-To
# naming it; files rotate at their size.
# timeout: 60
. "$WPFS_ROOT/tests/lib.sh"
D=$T_DIR/warc
mkdir -p "$D"
node --version >/dev/null 2>&1 || bail "node is missing (make deps)"
[ -d "$WPFS_ROOT/node_modules/warcio" ] || bail "warcio is missing (make deps)"

ok "writer ran" "$WPFS_BIN/itest/itest_crawl_warc" "$D"
files=$(cd "$D" && ls itest-*.warc.gz | sort -t- -k3)
nfiles=$(echo "$files" | wc -l)
cmp_ge "$nfiles" 3 "files rotated at 5000 bytes"

(cd "$WPFS_ROOT" && node tests/e2e/crawl_warc_list.mjs $(for f in $files; do echo "$D/$f"; done)) \
  >"$T_DIR/read.jsonl" 2>"$T_DIR/read.err"
is "$?" 0 "warcio read every file"
summary=$(tail -1 "$T_DIR/read.jsonl")
head -n -1 "$T_DIR/read.jsonl" >"$T_DIR/records.jsonl"
expected=$(wc -l <"$D/expect.jsonl")
with_meta=$(jq -s 'map(select(.outlinks >= 0)) | length' "$D/expect.jsonl")
is "$(jq -r .records <<<"$summary")" $((2 * expected + with_meta + nfiles)) \
  "per page a request and a response or revisit, a metadata record when given one, a warcinfo per file"
is "$(jq -r .bad <<<"$summary")" 0 "every block and payload digest matches its content"
is "$(jq -r .types.warcinfo <<<"$summary")" "$nfiles" "one warcinfo per file"
is "$(jq -r .types.revisit <<<"$summary")" 2 "two revisits"
is "$(jq -r .types.request <<<"$summary")" "$expected" "a request record per page"
is "$(jq -r .types.metadata <<<"$summary")" "$with_meta" "a metadata record per page given one"
for check in warcinfo digest revisit refers unresolved concurrent unpaired request metadata duplicate_id; do
  is "$(jq -r ".checks.$check" <<<"$summary")" 0 "warcio: no record breaks the '$check' rule"
done
grep -v '^digest' "$T_DIR/read.err" | head -5

# The first record of each file is its warcinfo.
firsts=$(jq -r 'select(.offset == 0) | .type' "$T_DIR/records.jsonl" | sort -u)
is "$firsts" warcinfo "every file starts with warcinfo"

# Each expected record, found by file and offset, with the same fields.
key='"\(.file) \(.offset) \(.type) \(.uri) \(.payload_digest) \(.status) \(.body_length)"'
jq -r "$key" "$D/expect.jsonl" | sort >"$T_DIR/want"
jq -r "select(.type == \"response\" or .type == \"revisit\") | $key" "$T_DIR/records.jsonl" | sort >"$T_DIR/got"
ok "records match what was written (file, offset, type, URI, digest, status, body)" \
  cmp -s "$T_DIR/want" "$T_DIR/got"
[ -s "$T_DIR/want" ] || fail "no expectations written"
diff "$T_DIR/want" "$T_DIR/got" | head -5

dup='select(.uri == "http://b.test/dup" and .type == "revisit")'
is "$(jq -r "$dup | .refers_to" "$T_DIR/records.jsonl")" "http://a.test/" \
  "revisit refers to the original"
is "$(jq -r "$dup | .refers_to_date" "$T_DIR/records.jsonl")" "2023-11-14T22:13:20Z" \
  "...with the original's date"
want_id=$(jq -r 'select(.uri == "http://a.test/") | .id' "$D/expect.jsonl")
is "$(jq -r 'select(.uri == "http://a.test/" and .type == "response") | .id' "$T_DIR/records.jsonl")" \
  "$want_id" "the original has the record id its writer chose"
is "$(jq -r "$dup | .refers_to_id" "$T_DIR/records.jsonl")" "$want_id" "...which the revisit names"
nm='select(.type == "revisit" and .status == 304)'
is "$(jq -r "$nm | \"\(.profile) \(.refers_to) \(.refers_to_date)\"" "$T_DIR/records.jsonl")" \
  "http://netpreserve.org/warc/1.1/revisit/server-not-modified http://a.test/bin 2023-11-14T22:13:21Z" \
  "a 304: revisit of profile server-not-modified, the earlier copy's URI and date"
ok "a URL not in canonical form: the request the gateway makes, canonical" \
  bash -c 'gzip -dc "$1"/itest-*.warc.gz | tr -d "\r" | grep -a -A12 "^WARC-Target-URI: HTTP://A.TEST:80/odd$" | grep -q "^Host: a.test$"' _ "$D"
meta='select(.type == "metadata" and .uri == "http://a.test/")'
is "$(jq -c "$meta | .outlinks" "$T_DIR/records.jsonl")" '["http://a.test/x","http://a.test/f"]' \
  "metadata record: the page's outlinks, a link with a line break in it left out"
is "$(jq -r "$meta | .fields.fetchTimeMs" "$T_DIR/records.jsonl")" 12 "...and its fields"
is "$(jq -r "$meta | .fields.robots" "$T_DIR/records.jsonl")" "noindex, noarchive" \
  "...and the page-level robots directives obeyed"
is "$(jq -r 'select(.type == "metadata" and .uri == "http://a.test/empty") | .fields.robots' \
  "$T_DIR/records.jsonl")" null "...none on a page without any"
ok "outlink lines as Heritrix writes them" \
  bash -c 'gzip -dc "$1"/itest-*.warc.gz | tr -d "\r" | grep -q "^outlink: http://a.test/f E iframe/@src$"' _ "$D"

# The HTTP head as stored: encoding headers renamed, a real Content-Length,
# no raw line break from a header value.
first=$(echo "$files" | head -1)
head_text=$(gzip -dc "$D/$first" 2>/dev/null | tr -d '\r' | sed -n '/^HTTP\/1.1 200 OK$/,/^$/p' | head -8)
ok "Content-Encoding kept as X-Archive-Orig-Content-Encoding" grep -q '^X-Archive-Orig-Content-Encoding: gzip$' <<<"$head_text"
ok "Transfer-Encoding renamed" grep -q '^X-Archive-Orig-Transfer-Encoding: chunked$' <<<"$head_text"
ok "Content-Length of the stored body" grep -q '^Content-Length: 42$' <<<"$head_text"
ok "header value line break flattened" grep -q '^X-Odd: line  break$' <<<"$head_text"
ok "invalid header name dropped" bash -c '! grep -q "^Bad Name" <<<"$1"' _ "$head_text"
ok "gzip -t: every member is valid gzip" gzip -t "$D"/*.warc.gz
done_testing
