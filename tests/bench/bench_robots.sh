#!/bin/bash
# robots.txt parser and matcher: parse MB/s on a realistic large file and a
# generated 500 KiB one, matches/s, memory and stored size. The figures are
# recorded in docs/robots.md.
set -u
: "${WPFS_BIN:?run through make bench}" "${WPFS_ROOT:?run through make bench}"
exec "$WPFS_BIN/bench/bench_robots" "$WPFS_ROOT/tests/data/robots/realistic_large.txt" \
  "$WPFS_ROOT/tests/data/robots/cli_site.txt"
