#!/bin/bash
# wpfs-refresh's command line, with no gateway answering: what it refuses
# and why (missing --urls/--out/--rate, an unknown policy, a bad weight
# with its line number, an unreadable list, an empty one), the three input
# formats (a list, a discovery crawl's log or --out directory, a WARC file)
# read into the right number of pages, and docs/refresh.md's options table
# is what the program prints.
# To regenerate the table after changing the program's config table:
#   node tests/contract/docs.mjs --write docs/refresh.md config-refresh=config:$PWD/bin/wpfs-refresh
# timeout: 60
. "$WPFS_ROOT/tests/lib.sh"
R=$WPFS_BIN/wpfs-refresh
# Port 9 refuses: batches fail and are retried until --duration-s ends.
refresh() { WPFS_TOKEN=t "$R" --gateway http://127.0.0.1:9 --log-level error "$@" 2>"$T_DIR/err"; }
printf 'http://a.test/1\nhttp://a.test/2\t2.5\n# a comment\n\nhttp://b.test/3\t1\n' >"$T_DIR/list"

refresh --out "$T_DIR/o1" --rate 1 >/dev/null
is "$?" 1 "no --urls: exit 1"
ok "...saying what is required" grep -q -- "--urls and --rate" "$T_DIR/err"
refresh --out "$T_DIR/o2" --urls "$T_DIR/list" >/dev/null
is "$?" 1 "no --rate: exit 1"
refresh --out "$T_DIR/o3" --urls "$T_DIR/list" --rate 1 --policy greedy >/dev/null
is "$?" 1 "an unknown policy: exit 1"
ok "...naming the policies" grep -q "optimal, uniform or proportional" "$T_DIR/err"
refresh --out "$T_DIR/o4" --urls "$T_DIR/none" --rate 1 >/dev/null
is "$?" 2 "an unreadable list: exit 2"
printf 'http://a.test/1\nhttp://a.test/2\tlots\n' >"$T_DIR/bad"
refresh --out "$T_DIR/o5" --urls "$T_DIR/bad" --rate 1 >/dev/null
is "$?" 2 "a weight that is no number: exit 2"
ok "...naming its line" grep -q "line 2: the weight" "$T_DIR/err"
printf 'http://a.test/1\t-1\n' >"$T_DIR/neg"
refresh --out "$T_DIR/o6" --urls "$T_DIR/neg" --rate 1 >/dev/null
is "$?" 2 "a negative weight: exit 2"
printf '# nothing\n' >"$T_DIR/empty"
refresh --out "$T_DIR/o7" --urls "$T_DIR/empty" --rate 1 >/dev/null
is "$?" 1 "no page at all: exit 1"

refresh --out "$T_DIR/o8" --urls "$T_DIR/list" --rate 5 --duration-s 1 >"$T_DIR/s8"
is "$?" 0 "a list, the gateway down: exit 0 at --duration-s"
is "$(tail -1 "$T_DIR/s8" | jq -r .pages)" 3 "...3 pages read"
is "$(tail -1 "$T_DIR/s8" | jq -r .fetches)" 0 "...none fetched"
is "$(tail -1 "$T_DIR/s8" | jq -r .change_log)" "$T_DIR/o8/changes.jsonl" "the summary names the change log"
is "$(tail -1 "$T_DIR/s8" | jq -c .warc_paths)" "[]" "...and no WARC file: nothing was fetched"

# A discovery crawl's log: its 200s only.
mkdir -p "$T_DIR/crawl"
cat >"$T_DIR/crawl/crawl.jsonl" <<'EOF'
{"time":"2024-01-01T00:00:00Z","url":"http://a.test/","status":200,"outcome":"ok","bytes":1,"ms":1,"depth":0,"links":0,"duplicate_of":null}
{"time":"2024-01-01T00:00:00Z","url":"http://a.test/x","status":404,"outcome":"ok","bytes":1,"ms":1,"depth":1,"links":0,"duplicate_of":null}
{"time":"2024-01-01T00:00:00Z","url":"http://a.test/y","status":200,"outcome":"ok","bytes":1,"ms":1,"depth":1,"links":0,"duplicate_of":null}
EOF
refresh --out "$T_DIR/o9" --urls "$T_DIR/crawl/crawl.jsonl" --rate 5 --duration-s 1 >"$T_DIR/s9"
is "$(tail -1 "$T_DIR/s9" | jq -r .pages)" 2 "a crawl log: its two 200 pages"
refresh --out "$T_DIR/o10" --urls "$T_DIR/crawl" --rate 5 --duration-s 1 >"$T_DIR/s10"
is "$(tail -1 "$T_DIR/s10" | jq -r .pages)" 2 "a crawl's --out directory: the same"

# A WARC file (written by the crawlers' WARC writer): its 200 responses.
mkdir -p "$T_DIR/warc"
ok "WARC writer ran" "$WPFS_BIN/itest/itest_crawl_warc" "$T_DIR/warc"
first=$(cd "$T_DIR/warc" && ls itest-*.warc.gz | sort -t- -k3 | head -1)
want1=$(zcat "$T_DIR/warc/$first" | grep -a -A12 '^WARC-Type: response' |
  grep -a -c '^HTTP/1.1 200')
refresh --out "$T_DIR/o11" --urls "$T_DIR/warc/$first" --rate 5 --duration-s 1 >"$T_DIR/s11"
is "$?" 0 "a WARC file: exit 0"
is "$(tail -1 "$T_DIR/s11" | jq -r .pages)" "$want1" "...its $want1 responses of status 200"
cmp_ge "$want1" 2 "...of which there are several"

node "$WPFS_ROOT/tests/contract/docs.mjs" --check "$WPFS_ROOT/docs/refresh.md" \
  "config-refresh=config:$R" >"$T_DIR/docs.out" 2>&1
is "$?" 0 "docs/refresh.md is there and its options table is current"
ok "--help names every option" bash -c '"$1" --help | grep -q -- --max-age-share' _ "$R"
done_testing
