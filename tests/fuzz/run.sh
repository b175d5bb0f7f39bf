#!/bin/bash
# Runs each libFuzzer target for FUZZ_SECONDS with its seed corpus
# (tests/fuzz/corpus/<target>/, if any); a crash fails the run.
set -u
secs=${FUZZ_SECONDS:-60}
rc=0
for f in "$@"; do
  name=$(basename "$f")
  seeds=$(dirname "$0")/corpus/$name
  work=build/fuzz/corpus/$name
  mkdir -p "$work"
  dict=$(dirname "$0")/$name.dict
  args=(-max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
  [ -f "$dict" ] && args+=(-dict="$dict")
  echo "== $name ($secs s)"
  if "$f" "${args[@]}" "$work" $( [ -d "$seeds" ] && echo "$seeds" ) >"build/fuzz/$name.log" 2>&1; then
    grep -E 'stat::number_of_executed_units|Done' "build/fuzz/$name.log" | tail -2
    echo "ok $name"
  else
    tail -30 "build/fuzz/$name.log"
    echo "FAILED $name (log: build/fuzz/$name.log)"
    rc=1
  fi
done
exit $rc
