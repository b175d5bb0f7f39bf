#!/bin/bash
# The contract itself: openapi.yaml lints with no error (redocly, recommended
# rules plus redocly.yaml).
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no root"
out=$(NO_UPDATE_NOTIFIER=1 REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  node_modules/.bin/redocly lint openapi.yaml --format=stylish 2>&1)
rc=$?
echo "$out" | grep -E 'error|warning' | sed 's/^/# /'
is "$rc" 0 "openapi.yaml lints without errors"
errors=$(echo "$out" | grep -cE '^\s+[0-9]+:[0-9]+\s+error')
is "$errors" 0 "no lint error lines"
done_testing
