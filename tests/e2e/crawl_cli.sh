#!/bin/bash
# wpfs-discover's seeds file: a line longer than any URL is refused as a
# whole (not cut into pieces that would each be taken for a seed), a line
# that is not a URL is refused, each with its line number; with no seed
# left the crawler stops before asking any gateway (exit 2).
# timeout: 30
. "$WPFS_ROOT/tests/lib.sh"
{
  printf 'http://a.test/%s\n' "$(head -c 5000 /dev/zero | tr '\0' 'x')"
  echo 'not a url'
  echo '# a comment'
  echo
} >"$T_DIR/seeds"
WPFS_TOKEN=t "$WPFS_BIN/wpfs-discover" --gateway http://127.0.0.1:9 --seeds "$T_DIR/seeds" \
  --out "$T_DIR/out" --log-level off >"$T_DIR/out.txt" 2>"$T_DIR/err.txt"
is "$?" 2 "no usable seed: exit 2"
ok "the long line is refused whole, with its number" grep -q 'line 1: longer than a URL can be' "$T_DIR/err.txt"
ok "the bad line is refused, with its number" grep -q 'line 2: not a seed URL' "$T_DIR/err.txt"
is "$(grep -c 'not a seed URL\|longer than' "$T_DIR/err.txt")" 2 "two lines refused, nothing else taken for a seed"
done_testing
