#!/bin/bash
# The crawler's URL-seen set: lookups/s and bytes per URL in memory and on
# disk, at budgets that keep it in memory or spill it to sorted runs,
# against the same stream on a set with no budget (tests/bench/bench_crawl_seen.c).
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-bench-seen.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$WPFS_BIN/bench/bench_crawl_seen" "$dir" "${SEEN_DISTINCT:-2000000}" "${SEEN_LINKS:-5}"
