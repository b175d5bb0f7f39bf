#!/bin/bash
# The benchmark programs that need no servers (and the state Redis's
# cycle, which needs one redis-server) run and print their figures
# (make bench is not part of make test: a bench program that crashes, as
# bench_robots_check did once the gateway's checks began recording what
# they checked, would go unseen until someone measures).
# timeout: 60
. "$WPFS_ROOT/tests/lib.sh"
B=$WPFS_BIN/bench
"$B/bench_robots_check" "$WPFS_ROOT/tests/data/robots/cli_site.txt" >"$T_DIR/rc.out" 2>&1
is "$?" 0 "bench_robots_check: exit 0"
is "$(grep -c 'checks/s parsing each time' "$T_DIR/rc.out")" 2 "...both files measured"
printf 'http://a/1\t10\t0\nhttp://a/2\t0\t0\nhttp://a/3\t1\t0\nhttp://a/4\t100\t30\n' |
  "$B/bench_refresh_model" 0.5 >"$T_DIR/rm.out"
is "$?" 0 "bench_refresh_model: exit 0"
is "$(jq -r .pages "$T_DIR/rm.out")" 3 "...gone pages left out"
ok "...optimal >= uniform >= proportional" jq -e '.optimal >= .uniform and .uniform >= .proportional' "$T_DIR/rm.out"
"$B/bench_refresh_model" 0 </dev/null >/dev/null 2>&1
is "$?" 1 "...a rate of 0 refused"
printf '0 10 0.1 0.1 0.1 0.6 0\n1 0 0.01 0.05 0.05 1 0.9\n2 100 0.01 0.05 0.05 0.9 0\n' |
  "$B/bench_refresh_model" --split >"$T_DIR/split.out"
is "$?" 0 "bench_refresh_model --split: exit 0"
ok "...the loss split in parts" jq -e '.pages == 3 and (.loss_estimation | type) == "number"' \
  "$T_DIR/split.out"
"$B/bench_refresh_sim" 60 6 1 3 600 0.15 3 60 30 >"$T_DIR/sim.out" 2>"$T_DIR/sim.err"
is "$?" 0 "bench_refresh_sim: exit 0"
ok "...the web simulated, the policies beside it" \
  jq -e '.fetches_per_s > 2.5 and .optimal >= .uniform and .expected > 0' "$T_DIR/sim.out"
"$B/bench_refresh_sim" 60 6 1 3 600 0.15 3 60 90 >/dev/null 2>&1
is "$?" 1 "...a window longer than the run refused"
"$B/bench_scope" 2000 >"$T_DIR/scope.out" 2>&1
is "$?" 0 "bench_scope: exit 0"
ok "...PCRE2 and glibc's regexec make the same decisions" grep -q 'the same decisions: yes' \
  "$T_DIR/scope.out"
export WPFS_BENCH_US=20000  # each figure for 20 ms: that they run, not what they say
"$B/bench_html" 50 >"$T_DIR/html.out" 2>&1
is "$?" 0 "bench_html: exit 0"
is "$(grep -c ' us/page$' "$T_DIR/html.out")" 6 "...every stage measured"
"$B/bench_warc_gzip" 20 >"$T_DIR/gz.out" 2>&1
is "$?" 0 "bench_warc_gzip: exit 0"
ok "...libdeflate level 1 measured" grep -q 'libdeflate level 1' "$T_DIR/gz.out"
"$B/bench_page_zstd" 20 >"$T_DIR/zs.out" 2>&1
is "$?" 0 "bench_page_zstd: exit 0"
is "$(grep -c 'decompress' "$T_DIR/zs.out")" 5 "...every level measured"
"$B/bench_heap" 5000 50 20000 >"$T_DIR/heap.out" 2>&1
is "$?" 0 "bench_heap: exit 0"
is "$(grep -c '_ns_per_op [0-9.]* order [0-9a-f]*$' "$T_DIR/heap.out")" 2 "...both heaps measured"
"$B/bench_memo" 300 20000 >"$T_DIR/memo.out" 2>&1
is "$?" 0 "bench_memo: exit 0"
is "$(grep -c '_ns_per_op [0-9.]* hits [1-9][0-9]*$' "$T_DIR/memo.out")" 2 "...both caches measured, with hits"
# the state Redis's cycle (a redis-server of its own), against the library
# of the commit checked out too, in a git checkout
C=$T_DIR/cycle.out
CYCLE_SITES=5 CYCLE_URLS=4 CYCLE_BATCH=5 CYCLE_DELAY_US=0 CYCLE_ROUNDS=3 CYCLE_RUNS=2 \
  bash "$WPFS_ROOT/tests/bench/bench_state_cycle.sh" >"$C" 2>&1
is "$?" 0 "bench_state_cycle: exit 0"
is "$(grep -c 'ratio to the 60 us target' "$C")" 2 "...two runs, each against the target"
is "$(grep -c '^   15 pages; FCALL [0-9.]* us a page, of which its commands [0-9.]*$' "$C")" 2 \
  "...15 pages a run: 5 sites, each due again in each of 3 rounds"
ok "...a line per command" grep -qE '^ +zadd +[0-9.]+ a page' "$C"
if git -C "$WPFS_ROOT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
  CYCLE_BASE=HEAD CYCLE_SITES=5 CYCLE_URLS=4 CYCLE_BATCH=5 CYCLE_DELAY_US=0 CYCLE_ROUNDS=3 CYCLE_RUNS=2 \
    bash "$WPFS_ROOT/tests/bench/bench_state_cycle.sh" >"$C" 2>&1
  is "$?" 0 "bench_state_cycle CYCLE_BASE=HEAD: exit 0"
  is "$(grep -c '^   pair [12]: this tree / HEAD: ' "$C")" 2 "...a ratio for each pair"
fi  # (outside a git checkout there is no revision to compare with)
# under callgrind: the instructions a page, alike in each run of the same
# library but for the server's own timers (1.7 % apart at most in four
# runs of 100 pages)
CYCLE_CALLGRIND=1 CYCLE_SITES=20 CYCLE_URLS=6 CYCLE_BATCH=20 CYCLE_DELAY_US=0 CYCLE_ROUNDS=5 \
  CYCLE_RUNS=2 bash "$WPFS_ROOT/tests/bench/bench_state_cycle.sh" >"$C" 2>&1
is "$?" 0 "bench_state_cycle CYCLE_CALLGRIND=1: exit 0"
is "$(grep -c '^   [0-9]* instructions a page (callgrind)$' "$C")" 2 "...instructions a page, each run"
ok "...alike in both runs" awk '/instructions a page/ { v[n++] = $1 }
  END { exit !(n == 2 && v[0] > 0 && v[1] > 0 && v[0] / v[1] > 0.97 && v[0] / v[1] < 1.03) }' "$C"
done_testing
