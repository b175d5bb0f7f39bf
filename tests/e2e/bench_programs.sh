#!/bin/bash
# The benchmark programs that need no servers run and print their figures
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
done_testing
