#!/bin/bash
# timeout: 60
# docs/operations.md is not stale: its configuration tables equal what
# each program's own config table prints (`--help-markdown`, or `--help`),
# and its metrics tables list exactly the families that llfs and hlfs
# expose on /metrics (name, type, label names, help), scraped from running
# services. docs/api.md has a curl example for every route of openapi.yaml.
#
# To regenerate the tables after changing a config table or a metric:
#   WPFS_BIN=$PWD/bin WPFS_ROOT=$PWD bash tests/e2e/contract_docs.sh --write
. "$WPFS_ROOT/tests/lib.sh"
mode=--check
[ "${1:-}" = --write ] && mode=--write

start_redis
start_llfs
start_hlfs a --token docs-token-123
# Traffic first, so that labelled families show their label names.
for url in "$LLFS_URL/healthz" "$HLFS_URL/healthz" "$HLFS_URL/v1/stats"; do
  curl -s -o /dev/null -H 'Authorization: Bearer docs-token-123' "$url"
done
curl -s -o /dev/null -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/resolve?host=127.0.0.1"
curl -s "$LLFS_URL/metrics" >"$T_DIR/llfs.metrics"
curl -s "$HLFS_URL/metrics" >"$T_DIR/hlfs.metrics"
ok "llfs /metrics scraped" grep -q '^# TYPE llfs_' "$T_DIR/llfs.metrics"
ok "hlfs /metrics scraped" grep -q '^# TYPE hlfs_' "$T_DIR/hlfs.metrics"

node "$WPFS_ROOT/tests/contract/docs.mjs" "$mode" "$WPFS_ROOT/docs/operations.md" \
  "config-llfs=config:$WPFS_BIN/llfs" "config-hlfs=config:$WPFS_BIN/hlfs" \
  "metrics-llfs=metrics:$T_DIR/llfs.metrics" "metrics-hlfs=metrics:$T_DIR/hlfs.metrics" \
  >"$T_DIR/docs.out" 2>&1
rc=$?
while IFS= read -r line; do
  case $line in
    PASS\ *) pass "operations.md: ${line#PASS }" ;;
    FAIL\ *) fail "operations.md: ${line#FAIL }" ;;
    *) echo "# $line" ;;
  esac
done <"$T_DIR/docs.out"
if [ "$mode" = --write ]; then
  is "$rc" 0 "docs/operations.md rewritten"
else
  [ "$rc" -eq 0 ] || echo "# regenerate: WPFS_BIN=\$PWD/bin WPFS_ROOT=\$PWD bash tests/e2e/contract_docs.sh --write"
fi

# Every family on /metrics is in the doc (also said by the exact tables
# above; this names the family when a table is stale).
for f in $(sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$T_DIR/llfs.metrics" "$T_DIR/hlfs.metrics" | sort -u); do
  grep -q "^| \`$f\` |" "$WPFS_ROOT/docs/operations.md" || fail "metric $f is documented in docs/operations.md"
done
pass "every /metrics family checked against docs/operations.md"

# docs/api.md: one curl example per route.
node "$WPFS_ROOT/tests/contract/docs.mjs" --curl-examples "$WPFS_ROOT/docs/api.md" \
  "$WPFS_ROOT/openapi.yaml" >"$T_DIR/curl.out" 2>&1
while IFS= read -r line; do
  case $line in
    PASS\ *) pass "api.md: ${line#PASS }" ;;
    FAIL\ *) fail "api.md: ${line#FAIL }" ;;
    *) echo "# $line" ;;
  esac
done <"$T_DIR/curl.out"
done_testing
