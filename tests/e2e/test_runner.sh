#!/bin/bash
# timeout: 60
# The suite's own runner (tests/run.sh) on a made-up tree of e2e scripts:
# the scripts that declare "# lane: beside" run beside the others (the
# suite takes about the longest lane, not the sum), their results count,
# a failure there fails the run and is named, and a unit-only run starts
# none of them. Unit binaries mirror the tree (bin/test/FOLDER/FILE from
# tests/unit/FOLDER/FILE.c), one left by a moved source is not run, and
# each test's time lands in build/test-logs/times.tsv.
. "$WPFS_ROOT/tests/lib.sh"
root=$T_DIR/root
mkdir -p "$root/tests/e2e" "$T_DIR/bin/test"
script() {  # name lane(main|beside) body
  { echo '#!/bin/bash'; [ "$2" = beside ] && echo '# lane: beside'; echo "$3"; } \
    >"$root/tests/e2e/$1.sh"
}
script a main 'sleep 3; echo "ok 1 - a"'
script b beside 'sleep 3; echo "ok 1 - b"; echo "ok 2 - b"'
script c beside 'echo "ok 1 - c"; echo "not ok 2 - c fails"; exit 1'
script d main 'echo "ok 1 - d"; touch "'"$T_DIR"'/d-ran"'
cp "$WPFS_ROOT/tests/run.sh" "$root/tests/run.sh"
runner() { WPFS_BIN=$T_DIR/bin WPFS_ROOT=$root bash "$root/tests/run.sh" "$@"; }

t0=$(date +%s%N)
runner e2e >"$T_DIR/out" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
ok "a failure beside the rest fails the run (status $rc)" [ "$rc" -ne 0 ]
ok "the counts include both lanes" grep -qx '5 passed, 1 failed' "$T_DIR/out"
ok "the failed script beside the rest is named" grep -q '^failed: .*e2e_c' "$T_DIR/out"
ok "its failing check is shown" grep -q 'not ok 2 - c fails' "$T_DIR/out"
ok "the lane's lines come after the others'" \
  awk '/^-- beside the rest:/ { s = 1 } /^e2e_b / { b = s } /^e2e_a / { a = !s } END { exit !(a && b) }' "$T_DIR/out"
# a (3 s, main) and b (3 s, beside) overlap: one after the other is 6 s
cmp_le "$ms" 5500 "the two lanes ran side by side (${ms} ms; one after the other: 6 s)"

rm -f "$T_DIR/d-ran"
runner e2e e2e_d >"$T_DIR/out2" 2>&1
ok "a filter that names only a main script runs it alone" grep -qx '1 passed, 0 failed' "$T_DIR/out2"
ok "and passes" [ -f "$T_DIR/d-ran" ]

runner unit >"$T_DIR/out3" 2>&1
ok "a unit-only run starts no e2e script" grep -qx '0 passed, 0 failed' "$T_DIR/out3"
ok "nor the lane beside" bash -c '! grep -q "beside the rest" "$1"' _ "$T_DIR/out3"

mkdir -p "$T_DIR/bin/test/lib/sub" "$root/tests/unit/lib/sub"
# about 0.15 s of CPU, done by a child of the test (its CPU counts too)
printf '#!/bin/bash\nawk "BEGIN { for (i = 0; i < 5e6; i++) s += i }"\necho "ok 1 - x"\n' >"$T_DIR/bin/test/lib/sub/x"
printf '#!/bin/bash\necho "ok 1 - gone"\n' >"$T_DIR/bin/test/test_gone"  # its source moved
chmod +x "$T_DIR/bin/test/lib/sub/x" "$T_DIR/bin/test/test_gone"
touch "$root/tests/unit/lib/sub/x.c"
runner unit >"$T_DIR/out4" 2>&1
ok "a unit test in a folder of the tree runs, named by its path" grep -q '^unit/lib/sub/x .* 1 ok' "$T_DIR/out4"
ok "a binary without its source does not" grep -qx '1 passed, 0 failed' "$T_DIR/out4"
ok "the log is kept under its path" test -s "$root/build/test-logs/unit/lib/sub/x.log"
times=$root/build/test-logs/times.tsv
ok "times.tsv has its wall and CPU time" awk -F'\t' '$1 == "unit/lib/sub/x" && $2 ~ /^[0-9.]+$/ && $3 >= 0.1 && $4 == 0 { f = 1 } END { exit !f }' "$times"
ok "and the e2e scripts' of the earlier run" grep -q '^e2e_a	' "$times"
runner unit lib/sub >/dev/null 2>&1
is "$(grep -c '^unit/lib/sub/x	' "$times")" 1 "a test run again has one line, its last"
slow=$(WPFS_ROOT=$root bash "$WPFS_ROOT/tests/tools/slowest.sh" 2 | tail -n +3 | cut -d'`' -f2 | sort | tr '\n' ' ')
is "$slow" "e2e_a e2e_b " "tests/tools/slowest.sh: the two slowest (3 s each)"
done_testing
