#!/bin/bash
# Precision of the crawler's near-duplicate test on real manuals: the HTML
# trees of Debian documentation packages, read from disk (no network), as
# the crawler does (before: no near duplicate's links followed; after: a
# near duplicate's followed when they are not its original's). The figures
# are recorded in docs/crawler.md ("Content-seen test"). Trees of packages
# that are not installed are left out; with none, nothing is measured:
#   apt-get install python3.11-doc postgresql-doc-15 debian-reference-en \
#     cppreference-doc-en-html db5.3-doc
set -u
: "${WPFS_BIN:?run through make bench}" "${WPFS_ROOT:?run through make bench}"
trees=()
for t in python=/usr/share/doc/python3.11/html postgresql=/usr/share/doc/postgresql-doc-15/html \
         debian-reference=/usr/share/debian-reference cppreference=/usr/share/cppreference/doc/html \
         db5.3=/usr/share/doc/db5.3-doc; do
  [ -d "${t#*=}" ] && trees+=("${t%%=*}=$(readlink -f "${t#*=}")")
done
if [ ${#trees[@]} -eq 0 ]; then
  echo "   no documentation tree installed: nothing measured"
  exit 0
fi
"$WPFS_BIN/bench/bench_neardup" --before "${trees[@]}" &&
  "$WPFS_BIN/bench/bench_neardup" "${trees[@]}"
