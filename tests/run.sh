#!/bin/bash
# Test runner: every unit binary ($WPFS_BIN/test/FOLDER/FILE, built from
# tests/unit/FOLDER/FILE.c) and every end-to-end script (tests/e2e/*.sh),
# one process each with its own timeout. Tests speak TAP ("ok N - name" /
# "not ok N - name"); a test process that dies or times out counts as one
# failure. Each line gives the test's wall time, so the suite's budget
# (well under 15 minutes) can be watched; build/test-logs/times.tsv keeps
# every test's last wall and CPU time (tests/tools/slowest.sh reads it).
# Ends with "N passed, N failed".
# Two lanes: e2e scripts that declare "# lane: beside" near their top run
# one after another beside the rest of the suite (their lines are printed
# when the suite ends). Such a script spends its time waiting (crawl-delays,
# restarts, failovers, a rate), measured at under half a core, and shares
# nothing with another test (its own directory, ports and processes), so
# it neither slows the others nor depends on a quiet machine.
#   tests/run.sh [unit|e2e] [NAME-FILTER]
set -u
: "${WPFS_BIN:?set by make}" "${WPFS_ROOT:?set by make}"
export WPFS_BIN WPFS_ROOT CMOCKA_MESSAGE_OUTPUT=TAP
kind=${1:-all}
filter=${2:-}
logdir=$WPFS_ROOT/build/test-logs
mkdir -p "$logdir"
passed=0 failed=0 failures=()
times=$logdir/times.tsv
run_times=$logdir/.times.$$  # this run's lines, both lanes; merged at the end

# The CPU seconds (user + system) of the children waited for so far:
# the builtin "times" in this shell itself (a $(...) would ask a fork).
cpu_mark() { cpu_f=$run_times.cpu.$BASHPID; times >"$cpu_f"; }
cpu_read() {
  awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%.2f", s }' \
    "$cpu_f"
}

run_one() {  # name timeout cmd...
  local name=$1 tmo=$2; shift 2
  local log=$logdir/$name.log rc ok nok t0=$SECONDS w0=$EPOCHREALTIME c0
  mkdir -p "$(dirname "$log")"
  cpu_mark; c0=$(cpu_read)
  timeout -k 5 "$tmo" "$@" >"$log" 2>&1 </dev/null
  rc=$?
  local secs=$((SECONDS - t0)) w1=$EPOCHREALTIME
  cpu_mark
  awk -v n="$name" -v w="$w1" -v w0="$w0" -v c="$(cpu_read)" -v c0="$c0" -v rc="$rc" \
    'BEGIN { printf "%s\t%.1f\t%.1f\t%s\n", n, w - w0, c - c0, rc }' >>"$run_times"
  ok=$(grep -cE '^ok [0-9]+' "$log")
  nok=$(grep -cE '^not ok [0-9]+' "$log")
  if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
    nok=1
    [ "$rc" -eq 124 ] && echo "not ok - $name timed out after ${tmo}s" >>"$log"
    [ "$rc" -ne 124 ] && echo "not ok - $name exited with status $rc" >>"$log"
  fi
  if [ "$ok" -eq 0 ] && [ "$nok" -eq 0 ]; then
    nok=1
    echo "not ok - $name ran no test" >>"$log"
  fi
  passed=$((passed + ok)); failed=$((failed + nok))
  if [ "$nok" -gt 0 ]; then
    failures+=("$name")
    printf '%-32s %4d ok %4d FAILED %4d s\n' "$name" "$ok" "$nok" "$secs"
    grep -E "^not ok|^# " "$log" | head -80 | sed 's/^/    /'
    tail -n 15 "$log" | sed 's/^/    | /'
  else
    printf '%-32s %4d ok %11d s\n' "$name" "$ok" "$secs"
  fi
}

beside() { head -20 "$1" | grep -q '^# lane: beside'; }

run_e2e() {  # main|beside: the scripts of that lane
  local t name
  for t in "$WPFS_ROOT"/tests/e2e/*.sh; do
    [ -f "$t" ] || continue
    name=e2e_$(basename "$t" .sh)
    [ -n "$filter" ] && [[ $name != *$filter* ]] && continue
    if beside "$t"; then [ "$1" = beside ] || continue; else [ "$1" = main ] || continue; fi
    run_one "$name" "$(script_timeout "$t")" bash "$t"
  done
}

script_timeout() {  # a script may declare "# timeout: SECONDS" near its top
  local t
  t=$(head -20 "$1" | sed -n 's/^# timeout: *\([0-9]\+\).*/\1/p' | head -1)
  echo "${t:-120}"
}

lane=$logdir/.lane-beside.$$  # this run's own, as are its results
if [ "$kind" = all ] || [ "$kind" = e2e ]; then
  ( run_e2e beside >"$lane.out"; echo "$passed $failed ${failures[*]}" >"$lane.sum" ) &
  lane_pid=$!
  trap 'kill "$lane_pid" 2>/dev/null; rm -f "$lane.out" "$lane.sum" "$run_times" "$run_times".cpu.*' EXIT
fi
if [ "$kind" = all ] || [ "$kind" = unit ]; then
  while read -r t; do
    rel=${t#"$WPFS_BIN"/test/}
    # only binaries of sources that exist (not one left by a moved test)
    [ -f "$WPFS_ROOT/tests/unit/$rel.c" ] || continue
    name=unit/$rel
    [ -n "$filter" ] && [[ $name != *$filter* ]] && continue
    run_one "$name" 120 "$t"
  done < <(find "$WPFS_BIN/test" -type f -perm -u+x 2>/dev/null | sort)
fi
if [ "$kind" = all ] || [ "$kind" = e2e ]; then
  run_e2e main
  wait "$lane_pid"
  trap - EXIT
  [ -s "$lane.out" ] && echo "-- beside the rest:" && cat "$lane.out"
  read -r p f rest <"$lane.sum" || { p=0 f=1 rest=lane-beside; }
  passed=$((passed + p)); failed=$((failed + f))
  [ -n "$rest" ] && failures+=($rest)
  rm -f "$lane.out" "$lane.sum"
fi

# times.tsv: each test's last run (this run's lines replace earlier ones)
if [ -s "$run_times" ]; then
  touch "$times"
  { printf '# test\twall_s\tcpu_s\tstatus\n'
    awk -F'\t' 'NR == FNR { t[$1] = $0; next } !/^#/ && !($1 in t) { print } END { for (k in t) print t[k] }' \
      "$run_times" "$times" | sort
  } >"$times.new" && mv "$times.new" "$times"
fi
rm -f "$run_times" "$run_times".cpu.*
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]} (logs in $logdir)"
echo "wall time ${SECONDS} s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
