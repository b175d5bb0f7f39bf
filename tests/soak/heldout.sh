#!/bin/bash
# Runs the held-out crawl N times (seeds 1..N), each a fresh stack and
# world; prints one line per run and a total, exits 1 if any run failed.
#   tests/soak/heldout.sh [N]
set -u
n=${1:-20}
fail=0
for seed in $(seq 1 "$n"); do
  out=$(HELDOUT_SEED=$seed bash "$(dirname "$0")/heldout_crawl.sh" 2>&1)
  rc=$?
  pages=$(sed -n 's/^# \([0-9]*\) pages in \([0-9.]*\)s/\1 pages, \2 s/p' <<<"$out")
  if [ $rc -eq 0 ]; then
    echo "heldout seed $seed: ok ($pages)"
  else
    fail=$((fail + 1))
    echo "heldout seed $seed: FAILED ($pages)"
    grep -a '^not ok\|^Bail' <<<"$out" | sed 's/^/  /'
  fi
done
echo "heldout: $((n - fail)) of $n runs clean"
[ "$fail" -eq 0 ]
