#!/bin/bash
# docs/crawler.md is not stale: its options table is what wpfs-discover's
# own config table prints (--help-markdown).
# To regenerate it after changing the table:
#   node tests/contract/docs.mjs --write docs/crawler.md config-discover=config:$PWD/bin/wpfs-discover
# timeout: 30
. "$WPFS_ROOT/tests/lib.sh"
node "$WPFS_ROOT/tests/contract/docs.mjs" --check "$WPFS_ROOT/docs/crawler.md" \
  "config-discover=config:$WPFS_BIN/wpfs-discover" >"$T_DIR/docs.out" 2>&1
while IFS= read -r line; do
  case $line in
    PASS\ *) pass "crawler.md: ${line#PASS }" ;;
    FAIL\ *) fail "crawler.md: ${line#FAIL }" ;;
    *) echo "# $line" ;;
  esac
done <"$T_DIR/docs.out"
ok "wpfs-discover --help names every option" bash -c '"$1" --help | grep -q -- --site-budget' _ "$WPFS_BIN/wpfs-discover"
done_testing
