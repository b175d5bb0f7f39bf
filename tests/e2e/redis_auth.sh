#!/bin/bash
# timeout: 60
# A state Redis with a password (requirepass): the gateway authenticates
# every connection with --redis-password (WPFS_HLFS_REDIS_PASSWORD, from a
# secret), never prints it, and with a wrong one stays unready and says why.
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate sites=1,pages=3
start_llfs
REDIS_PORT=$(freeport)
bg redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$T_DIR" --logfile "" --requirepass s3cret-pass
wait_for 10 sh -c "redis-cli -p $REDIS_PORT ping 2>/dev/null | grep -q NOAUTH"
WPFS_HLFS_REDIS_PASSWORD=s3cret-pass start_hlfs a --token dev-token --min-delay-ms 0
is "$(curl -s -o /dev/null -w '%{http_code}' "$HLFS_URL/readyz")" 200 "the right password: ready"
is "$(WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=dev-token "$WPFS_BIN/wpfs" fetch "$(tw_url 127.10.0.1 /p/1.html)" |
  md5sum)" "$(curl -s "$(tw_url 127.10.0.1 /p/1.html)" | md5sum)" "...and it works"
is "$(REDISCLI_AUTH=s3cret-pass redis-cli -p "$REDIS_PORT" --scan --pattern 'r:*' | wc -l)" 1 \
  "...on that Redis"
out=$(WPFS_HLFS_REDIS_PASSWORD=s3cret-pass "$WPFS_BIN/hlfs" --print-config)
ok "--print-config does not show it" sh -c "! grep -q s3cret <<'X'
$out
X"
is "$(jq -r .redis_password <<<"$out")" "(redacted)" "...it says redacted"
pf=$T_DIR/bad.port
bg hlfs-bad "$WPFS_BIN/hlfs" --listen-port 0 --port-file "$pf" --redis "127.0.0.1:$REDIS_PORT" \
  --llfs "$LLFS_URL" --replica bad --token dev-token --redis-password wrong
wait_for 10 test -s "$pf"
sleep 1.5
is "$(curl -s -o /dev/null -w '%{http_code}' "127.0.0.1:$(cat "$pf")/readyz")" 503 \
  "a wrong password: not ready"
ok "...and the log says why" grep -q "refused the password" "$T_DIR/hlfs-bad.log"
ok "...without the password" sh -c "! grep -q wrong '$T_DIR/hlfs-bad.log'"
done_testing
