#!/bin/bash
# WARC output read back by an independent reader (warcio, from npm): every
# record written is found at its offset with its type, URI, status and
# payload digest; every block and payload digest matches the content;
# each file starts with a warcinfo record; files rotate at their size.
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
is "$(jq -r .records <<<"$summary")" $((expected + nfiles)) "one record per page plus a warcinfo per file"
is "$(jq -r .bad <<<"$summary")" 0 "every block and payload digest matches its content"
is "$(jq -r .types.warcinfo <<<"$summary")" "$nfiles" "one warcinfo per file"
is "$(jq -r .types.revisit <<<"$summary")" 1 "one revisit"

# The first record of each file is its warcinfo.
firsts=$(jq -r 'select(.offset == 0) | .type' "$T_DIR/records.jsonl" | sort -u)
is "$firsts" warcinfo "every file starts with warcinfo"

# Each expected record, found by file and offset, with the same fields.
key='"\(.file) \(.offset) \(.type) \(.uri) \(.payload_digest) \(.status) \(.body_length)"'
jq -r "$key" "$D/expect.jsonl" | sort >"$T_DIR/want"
jq -r "select(.type != \"warcinfo\") | $key" "$T_DIR/records.jsonl" | sort >"$T_DIR/got"
ok "records match what was written (file, offset, type, URI, digest, status, body)" \
  cmp -s "$T_DIR/want" "$T_DIR/got"
[ -s "$T_DIR/want" ] || fail "no expectations written"
diff "$T_DIR/want" "$T_DIR/got" | head -5

is "$(jq -r 'select(.type == "revisit") | .refers_to' "$T_DIR/records.jsonl")" "http://a.test/" \
  "revisit refers to the original"

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
