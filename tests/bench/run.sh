#!/bin/bash
# Runs every benchmark script tests/bench/bench_*.sh in turn. Each prints its
# figures and the ratio against a baseline measured in the same run.
set -u
: "${WPFS_BIN:?run through make bench}" "${WPFS_ROOT:?run through make bench}"
filter=${1:-}
rc=0
for b in "$WPFS_ROOT"/tests/bench/bench_*.sh; do
  [ -f "$b" ] || continue
  [ -n "$filter" ] && [[ $(basename "$b") != *$filter* ]] && continue
  echo "== $(basename "$b" .sh)"
  bash "$b" || { echo "   (failed)"; rc=1; }
done
exit $rc
