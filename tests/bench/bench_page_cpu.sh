#!/bin/bash
# The crawler's per-page CPU outside the network, stage by stage, on pages
# shaped like a crawl's: HTML parsing, links, text and SimHash
# (tests/bench/bench_html.c), then the WARC record's gzip, each option
# (tests/bench/bench_warc_gzip.c), and the gateway's page cache zstd at
# several levels (tests/bench/bench_page_zstd.c).
set -u
"$WPFS_BIN/bench/bench_html" "${HTML_PAGES:-2000}" || exit 1
"$WPFS_BIN/bench/bench_warc_gzip" "${GZIP_PAGES:-200}" || exit 1
"$WPFS_BIN/bench/bench_page_zstd" "${ZSTD_PAGES:-200}"
