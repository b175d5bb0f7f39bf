#!/bin/bash
# The gateway's robots check with and without the parsed-rules cache:
# checks per second on a 500 KiB and a typical robots.txt. The figures are
# recorded in docs/robots.md.
set -u
: "${WPFS_BIN:?run through make bench}" "${WPFS_ROOT:?run through make bench}"
exec "$WPFS_BIN/bench/bench_robots_check" "$WPFS_ROOT/tests/data/robots/cli_site.txt"
