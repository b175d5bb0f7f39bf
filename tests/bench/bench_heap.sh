#!/bin/bash
# The binary heaps (common/heap.h) where they work: the scored frontier and
# the refresh crawl's pages by due time (tests/bench/bench_heap.c). CPU ns
# per operation, and a checksum of the order taken. With BASE_BIN set to
# the bin/ of another build (the same bench source built on the code before
# a change), both run in turn, three times, and the ratios this / base are
# printed; the orders must be equal.
set -u
args=(${HEAP_URLS:-400000} ${HEAP_HOSTS:-2000} ${HEAP_ROUNDS:-2000000})
if [ -z "${BASE_BIN:-}" ]; then
  "$WPFS_BIN/bench/bench_heap" "${args[@]}"
  exit
fi
for i in 1 2 3; do
  "$BASE_BIN/bench/bench_heap" "${args[@]}" | sed 's/^/base /'
  "$WPFS_BIN/bench/bench_heap" "${args[@]}" | sed 's/^/this /'
done | awk '
  { sum[$1 " " $2] += $3; ord[$1 " " $2] = $5; names[$2] = 1 }
  END {
    bad = 0
    for(n in names) {
      printf "%s: this %.1f ns, base %.1f ns, ratio %.2f\n", n, sum["this " n] / 3,
             sum["base " n] / 3, sum["this " n] / sum["base " n]
      if(ord["this " n] != ord["base " n]) { print n ": the orders differ"; bad = 1 }
    }
    exit bad
  }'
