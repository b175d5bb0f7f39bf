# bench_ab NAME REV WHAT ARGS...: the in-process benchmark
# bin/bench/NAME of this tree against the same benchmark built on the tree
# of REV (its sources, this tree's tests/bench/NAME.c and args.h), run in
# turn three times each; prints each measure's mean CPU ns for both and the
# ratio this tree / REV, the baseline of the same run. A benchmark's lines
# are "NAME MEASURE NS ... CHECK": the two trees' CHECKs (WHAT: "orders",
# "hits") must be equal, or the status is 1.
bench_ab() {
  local name=$1 rev=$2 what=$3
  shift 3
  AB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-bench-$name.XXXXXX")  # global: the trap runs after
  trap 'rm -rf "$AB_DIR"' EXIT
  local dir=$AB_DIR
  git -C "$WPFS_ROOT" archive "$rev" | tar -x -C "$dir" || { echo "no tree at $rev"; return 1; }
  cp "$WPFS_ROOT/tests/bench/$name.c" "$WPFS_ROOT/tests/bench/args.h" "$dir/tests/bench/"
  make -C "$dir" -s -j2 "bin/bench/$name" >"$dir/build.log" 2>&1 ||
    { tail -20 "$dir/build.log"; return 1; }
  for _ in 1 2 3; do
    "$dir/bin/bench/$name" "$@" | sed 's/^/base /'
    "$WPFS_BIN/bench/$name" "$@" | sed 's/^/this /'
  done | awk -v rev="$rev" -v what="$what" '
    { sum[$1 " " $2] += $3; chk[$1 " " $2] = $5; names[$2] = 1 }
    END {
      bad = 0
      for(n in names) {
        printf "%s: this tree %.1f, %s %.1f, x%.2f\n", n, sum["this " n] / 3, rev,
               sum["base " n] / 3, sum["this " n] / sum["base " n]
        if(chk["this " n] != chk["base " n]) { print n ": the " what " differ"; bad = 1 }
      }
      exit bad
    }'
}
