#!/bin/bash
# wpfs-url: one output line per argument, in order; invalid lines carry the
# error name, text and escaped input; exit status 0 / 1 / 2; options.
# timeout: 30
. "$WPFS_ROOT/tests/lib.sh"
U=$WPFS_BIN/wpfs-url

out=$("$U" canon 'HTTP://Example.COM:80/a/./b/../c#f' 'http://0x7f.1/' 'https://[::FFFF:7f00:1]:443')
is "$?" 0 "all valid: exit 0"
is "$out" $'http://example.com/a/c\nhttp://127.0.0.1/\nhttps://[::ffff:127.0.0.1]/' \
  "canonical lines in argument order"

"$U" canon 'http://a/' 'ftp://x/' 'http://b/' 'http://u:p@c/' >"$T_DIR/mixed"
is "$?" 1 "an invalid URL: exit 1"
is "$(wc -l <"$T_DIR/mixed")" 4 "one line per argument"
is "$(sed -n 1p "$T_DIR/mixed")" "http://a/" "line 1 valid"
is "$(sed -n 2p "$T_DIR/mixed")" $'invalid\tunsupported_scheme\tscheme is not http or https\tftp://x/' \
  "line 2: invalid, name, text, input (tab-separated)"
is "$(sed -n 3p "$T_DIR/mixed")" "http://b/" "line 3 valid after an invalid one"
is "$(sed -n 4p "$T_DIR/mixed" | cut -f1,2)" $'invalid\tuserinfo' "line 4: userinfo rejected"

line=$("$U" canon $'http://a b/\t\x01\\')
is "$?" 1 "invalid host: exit 1"
is "$(printf '%s' "$line" | cut -f4)" 'http://a b/\x09\x01\x5c' "input escaped on one line"
is "$(printf '%s' "$line" | awk -F'\t' '{print NF}')" 4 "exactly four fields"

long="http://a/$(head -c 2039 /dev/zero | tr '\0' x)"
is "$("$U" canon "$long" | wc -c)" 2049 "2048 bytes accepted (default max)"
is "$("$U" canon "${long}y" | cut -f2)" too_long "2049 bytes: too_long"
is "$("$U" --max-len 12 canon http://a/bcd)" "http://a/bcd" "--max-len N"
is "$("$U" --max-len=12 canon http://a/bcde | cut -f2)" too_long "--max-len=N"

is "$("$U" --sort-query canon 'http://a/?b=1&a=2&b=0')" "http://a/?a=2&b=1&b=0" "--sort-query"
is "$("$U" canon 'http://a/?b=1&a=2')" "http://a/?b=1&a=2" "query order kept by default"
is "$("$U" --strip-session-ids canon 'http://a/x;jsessionid=1?sid=2&k=v')" "http://a/x?k=v" \
  "--strip-session-ids"

is "$("$U" resolve 'http://a/b/c/d;p?q' '../../../g')" "http://a/g" "resolve"
is "$("$U" resolve 'http://a/b/c/d;p?q' 'g#s/../x')" "http://a/b/c/g#s/../x" "resolve keeps fragment"
is "$("$U" resolve 'rel/path' 'g' | cut -f2)" base_not_absolute "resolve: relative base"

"$U" --help >"$T_DIR/help"
is "$?" 0 "--help: exit 0"
ok "--help mentions canon and resolve" grep -q 'canon URL' "$T_DIR/help"
"$U" >/dev/null 2>&1
is "$?" 2 "no command: exit 2"
"$U" canon >/dev/null 2>&1
is "$?" 2 "canon without URL: exit 2"
"$U" --bogus canon http://a/ >/dev/null 2>&1
is "$?" 2 "unknown option: exit 2"
"$U" --max-len 0 canon http://a/ >/dev/null 2>&1
is "$?" 2 "--max-len 0: exit 2"
done_testing
