#!/bin/bash
# The binary heap (common/heap.h) where it works: the scored frontier and
# the refresh crawl's pages by due time (tests/bench/bench_heap.c). CPU ns
# per operation, and a checksum of the order taken.
# HEAP_BASE=REV builds the same benchmark on the tree of REV (its sources,
# this tree's bench_heap.c) and runs the two in turn, three times each,
# then prints the ratios this tree / REV (tests/bench/ab.sh).
# The orders must be equal: the heaps take the same decisions.
set -u
args=(${HEAP_URLS:-400000} ${HEAP_HOSTS:-2000} ${HEAP_ROUNDS:-2000000})
if [ -z "${HEAP_BASE:-}" ]; then
  "$WPFS_BIN/bench/bench_heap" "${args[@]}"
  exit
fi
. "$WPFS_ROOT/tests/bench/ab.sh"
bench_ab bench_heap "$HEAP_BASE" orders "${args[@]}"
