#!/bin/bash
# Scope rules' regular expressions: PCRE2 (JIT) through scope_decide
# against glibc's regexec on the same patterns and URLs, in CPU time
# (docs/crawler.md, "Scope rules").
set -u
: "${WPFS_BIN:?run through make bench}" "${WPFS_ROOT:?run through make bench}"
exec "$WPFS_BIN/bench/bench_scope"
