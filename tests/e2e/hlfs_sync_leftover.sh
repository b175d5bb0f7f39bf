#!/bin/bash
# timeout: 60
# A synchronous fetch whose waiter gave up (504) still gets its result
# published to the replica's own stream, which is read only while someone
# waits: the stream must not keep it for ever (a replica that is gone never
# reads it again). It expires 10 minutes after its last result. And no
# client may take a name of the gateway's own (sync.*).
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/sites.json" <<'EOF2'
{ "sites": [ { "address": "127.30.0.1", "pages": 3, "hold_ms": 1200 } ] }
EOF2
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs
start_hlfs a --token sync-token-1 --min-delay-ms 0 --delay-factor 0
s=$(curl -s -o "$T_DIR/out" -w '%{http_code}' -H 'Authorization: Bearer sync-token-1' \
  --data-binary "{\"url\": \"http://127.30.0.1:$TESTWEB_PORT/p/1.html\", \"wait_ms\": 100}" \
  "$HLFS_URL/v1/fetch")
is "$s" 504 "the waiter gives up first"
key=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'x:*sync.a' | head -1)
ok "the result comes to the replica's stream anyway" wait_for 10 sh -c \
  "[ \"\$(redis-cli -p $REDIS_PORT xlen '$key')\" -ge 1 ]"
ttl=$(redis-cli -p "$REDIS_PORT" pttl "$key")
echo "# $key: $(redis-cli -p "$REDIS_PORT" xlen "$key") entries, pttl $ttl"
cmp_ge "$ttl" 1 "the stream expires"
cmp_le "$ttl" 600000 "within 10 minutes"

echo '{"clients": [{"name": "sync.a", "token": "sync-token-2"}]}' >"$T_DIR/tokens.json"
"$WPFS_BIN/hlfs" --listen-port 0 --redis "127.0.0.1:$REDIS_PORT" --tokens-file "$T_DIR/tokens.json" \
  >"$T_DIR/bad.log" 2>&1
is "$?" 1 "a client named sync.a: the gateway refuses to start"
ok "saying why" grep -q 'names starting with \\"sync.\\" are the gateway' "$T_DIR/bad.log"
done_testing
