#!/bin/bash
# The gateway's string-keyed page caches on common/cache.h: the rendered-
# page memo and the fresh pages (tests/bench/bench_memo.c). CPU ns per
# lookup (a put after each miss), and the hits.
# MEMO_BASE=REV builds the same benchmark on the tree of REV (its sources,
# this tree's bench_memo.c) and runs the two in turn, three times each,
# then prints the ratios this tree / REV: the baseline of the same run.
# The hits must be equal: the caches keep and evict the same pages.
set -u
args=(${MEMO_KEYS:-20000} ${MEMO_OPS:-2000000})
if [ -z "${MEMO_BASE:-}" ]; then
  "$WPFS_BIN/bench/bench_memo" "${args[@]}"
  exit
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-bench-memo.XXXXXX")
trap 'rm -rf "$dir"' EXIT
git -C "$WPFS_ROOT" archive "$MEMO_BASE" | tar -x -C "$dir" || { echo "no tree at $MEMO_BASE"; exit 1; }
cp "$WPFS_ROOT/tests/bench/bench_memo.c" "$WPFS_ROOT/tests/bench/args.h" "$dir/tests/bench/"
make -C "$dir" -s -j2 bin/bench/bench_memo >"$dir/build.log" 2>&1 ||
  { tail -20 "$dir/build.log"; exit 1; }
for i in 1 2 3; do
  "$dir/bin/bench/bench_memo" "${args[@]}" | sed 's/^/base /'
  "$WPFS_BIN/bench/bench_memo" "${args[@]}" | sed 's/^/this /'
done | awk -v rev="$MEMO_BASE" '
  { sum[$1 " " $2] += $3; ord[$1 " " $2] = $5; names[$2] = 1 }
  END {
    bad = 0
    for(n in names) {
      printf "%s: this tree %.1f, %s %.1f, x%.2f\n", n, sum["this " n] / 3, rev,
             sum["base " n] / 3, sum["this " n] / sum["base " n]
      if(ord["this " n] != ord["base " n]) { print n ": the hits differ"; bad = 1 }
    }
    exit bad
  }'
