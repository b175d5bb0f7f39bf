#!/bin/bash
# The slowest tests of the last runs, from build/test-logs/times.tsv (each
# test's last wall and CPU time, written by tests/run.sh), as a Markdown
# table, slowest first.
#   tests/tools/slowest.sh [N]          print the N slowest (10)
#   tests/tools/slowest.sh --write [N]  replace the table in docs/reliability.md
set -eu
root=${WPFS_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
times=${TIMES:-$root/build/test-logs/times.tsv}
doc=$root/docs/reliability.md
write=0
[ "${1:-}" = --write ] && { write=1; shift; }
n=${1:-10}
[ -s "$times" ] || { echo "slowest.sh: no $times (run tests/run.sh first)" >&2; exit 1; }

table() {
  echo "| test | wall s | CPU s |"
  echo "|---|---:|---:|"
  grep -v '^#' "$times" | sort -t"$(printf '\t')" -k2,2gr | head -n "$n" |
    awk -F'\t' '{ printf "| `%s` | %.1f | %.1f |\n", $1, $2, $3 }'
}

if [ "$write" = 0 ]; then
  table
  exit 0
fi
begin='<!-- slowest tests: tests/tools/slowest.sh --write -->'
end='<!-- end of slowest tests -->'
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || {
  echo "slowest.sh: no markers in $doc" >&2
  exit 1
}
table >"$doc.table"
awk -v b="$begin" -v e="$end" -v t="$doc.table" '
  $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
  $0 == e { skip = 0 }
  !skip' "$doc" >"$doc.new"
rm -f "$doc.table"
mv "$doc.new" "$doc"
