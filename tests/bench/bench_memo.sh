#!/bin/bash
# The gateway's string-keyed page caches on common/cache.h: the rendered-
# page memo and the fresh pages (tests/bench/bench_memo.c). CPU ns per
# lookup (a put after each miss), and the hits.
# MEMO_BASE=REV builds the same benchmark on the tree of REV (its sources,
# this tree's bench_memo.c) and runs the two in turn, three times each,
# then prints the ratios this tree / REV (tests/bench/ab.sh).
# The hits must be equal: the caches keep and evict the same pages.
set -u
args=(${MEMO_KEYS:-20000} ${MEMO_OPS:-2000000})
if [ -z "${MEMO_BASE:-}" ]; then
  "$WPFS_BIN/bench/bench_memo" "${args[@]}"
  exit
fi
. "$WPFS_ROOT/tests/bench/ab.sh"
bench_ab bench_memo "$MEMO_BASE" hits "${args[@]}"
