#!/bin/bash
# wpfs-focus's command line, with no gateway: what it refuses and why
# (no topic, a topic of stop words only, an unknown strategy or scope, a
# resume with nothing to resume, unreadable example pages), and
# docs/focus.md's options table is what the program prints.
# To regenerate the table after changing the program's config table:
#   node tests/contract/docs.mjs --write docs/focus.md config-focus=config:$PWD/bin/wpfs-focus
# timeout: 30
. "$WPFS_ROOT/tests/lib.sh"
F=$WPFS_BIN/wpfs-focus
echo "http://site1.test/" >"$T_DIR/seeds"
# The gateway is never reached: every case fails before the crawl starts.
focus() { WPFS_TOKEN=t "$F" --gateway http://127.0.0.1:9 --seeds "$T_DIR/seeds" "$@" 2>"$T_DIR/err"; }

focus --out "$T_DIR/o1" >/dev/null
is "$?" 1 "no --topic: exit 1"
ok "...saying --topic is required" grep -q -- "--topic are required" "$T_DIR/err"
focus --out "$T_DIR/o2" --topic "the and of it" >/dev/null
is "$?" 1 "a topic of stop words only: exit 1"
ok "...saying so" grep -q "no word left" "$T_DIR/err"
focus --out "$T_DIR/o3" --topic sailing --strategy dfs >/dev/null
is "$?" 1 "an unknown strategy: exit 1"
ok "...naming the strategies" grep -q "shark, best-first or bfs" "$T_DIR/err"
focus --out "$T_DIR/o4" --topic sailing --scope world >/dev/null
is "$?" 1 "an unknown scope: exit 1"
focus --out "$T_DIR/o5" --resume >/dev/null
is "$?" 1 "--resume of a directory with no crawl and no --topic: exit 1"
focus --out "$T_DIR/o6" --topic sailing --topic-pages "$T_DIR/none" >/dev/null
is "$?" 2 "--topic-pages that cannot be read: exit 2"
echo "$T_DIR/missing.html" >"$T_DIR/pages"
focus --out "$T_DIR/o7" --topic sailing --topic-pages "$T_DIR/pages" >/dev/null
is "$?" 2 "an example page file that cannot be read: exit 2"
ok "...naming it" grep -q "missing.html" "$T_DIR/err"
focus --out "$T_DIR/o8" --topic sailing --gamma 2 >/dev/null
is "$?" 1 "gamma out of [0, 1]: exit 1"

node "$WPFS_ROOT/tests/contract/docs.mjs" --check "$WPFS_ROOT/docs/focus.md" \
  "config-focus=config:$F" >"$T_DIR/docs.out" 2>&1
is "$?" 0 "docs/focus.md is there and its options table is current"
while IFS= read -r line; do
  case $line in
    PASS\ *) pass "focus.md: ${line#PASS }" ;;
    FAIL\ *) fail "focus.md: ${line#FAIL }" ;;
    *) echo "# $line" ;;
  esac
done <"$T_DIR/docs.out"
ok "--help names every option" bash -c '"$1" --help | grep -q -- --context-bytes' _ "$F"
done_testing
