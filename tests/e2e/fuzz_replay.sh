#!/bin/bash
# Every fuzz target, built without libFuzzer (tests/fuzz/replay.c), replays
# its seed corpus and the inputs that once failed (tests/fuzz/corpus/): the
# targets keep compiling with the code they test (two had stopped, unseen,
# when an interface changed), and a fixed bug stays fixed. Under
# SANITIZE=1 the replay runs with ASan and UBSan.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
n=0
for src in "$WPFS_ROOT"/tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  corpus=$WPFS_ROOT/tests/fuzz/corpus/$name
  ok "$name has a seed corpus" test -d "$corpus"
  out=$("$WPFS_BIN/fuzz/$name" "$corpus" 2>&1)
  is "$?" 0 "$name replays its corpus ($(tail -1 <<<"$out"))"
  n=$((n + 1))
done
cmp_ge "$n" 9 "every target replayed"
done_testing
