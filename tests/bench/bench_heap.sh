#!/bin/bash
# The binary heap (common/heap.h) where it works: the scored frontier and
# the refresh crawl's pages by due time (tests/bench/bench_heap.c). CPU ns
# per operation, and a checksum of the order taken.
# HEAP_BASE=REV builds the same benchmark on the tree of REV (its sources,
# this tree's bench_heap.c) and runs the two in turn, three times each,
# then prints the ratios this tree / REV: the baseline of the same run.
# The orders must be equal: the heaps take the same decisions.
set -u
args=(${HEAP_URLS:-400000} ${HEAP_HOSTS:-2000} ${HEAP_ROUNDS:-2000000})
if [ -z "${HEAP_BASE:-}" ]; then
  "$WPFS_BIN/bench/bench_heap" "${args[@]}"
  exit
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-bench-heap.XXXXXX")
trap 'rm -rf "$dir"' EXIT
git -C "$WPFS_ROOT" archive "$HEAP_BASE" | tar -x -C "$dir" || { echo "no tree at $HEAP_BASE"; exit 1; }
cp "$WPFS_ROOT/tests/bench/bench_heap.c" "$WPFS_ROOT/tests/bench/args.h" "$dir/tests/bench/"
make -C "$dir" -s -j2 bin/bench/bench_heap >"$dir/build.log" 2>&1 ||
  { tail -20 "$dir/build.log"; exit 1; }
for i in 1 2 3; do
  "$dir/bin/bench/bench_heap" "${args[@]}" | sed 's/^/base /'
  "$WPFS_BIN/bench/bench_heap" "${args[@]}" | sed 's/^/this /'
done | awk -v rev="$HEAP_BASE" '
  { sum[$1 " " $2] += $3; ord[$1 " " $2] = $5; names[$2] = 1 }
  END {
    bad = 0
    for(n in names) {
      printf "%s: this tree %.1f, %s %.1f, x%.2f\n", n, sum["this " n] / 3, rev,
             sum["base " n] / 3, sum["this " n] / sum["base " n]
      if(ord["this " n] != ord["base " n]) { print n ": the orders differ"; bad = 1 }
    }
    exit bad
  }'
