#!/bin/bash
# A state Redis that refuses writes for a while (min-replicas-to-write with
# no replica yet: NOREPLICAS, as a master just promoted by the sentinels
# does until its replicas catch up) when the gateway connects: the shard
# group check (a SET NX) fails, and the gateway takes no claim and no
# submission on that Redis until it is checked. It is asked again at the
# next claim or submission, so once a replica is there the gateway works
# without a new connection. Before, it was asked only at the next
# connection: the gateway stayed without claims for as long as its
# connection lived (torture with Sentinel, seed 20261129).
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
TOKEN=noreplicas-token
start_testweb --sites <(echo '{"sites": [{"address": "127.26.0.1", "pages": 3}]}')
start_redis
redis-cli -p "$REDIS_PORT" CONFIG SET min-replicas-to-write 1 >/dev/null
redis-cli -p "$REDIS_PORT" CONFIG SET min-replicas-max-lag 10 >/dev/null
is "$(redis-cli -p "$REDIS_PORT" SET probe 1 | cut -c1-10)" NOREPLICAS "the Redis refuses writes"
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0
wait_for 10 grep -q "shard group could not be read" "$T_DIR/hlfs-a.log" ||
  bail "the gateway never met the refused write"
pass "the gateway met the refused write at its connection"
fetch() {
  curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
    --data-binary "{\"url\": \"http://127.26.0.1:$TESTWEB_PORT/p/1.html\", \"wait_ms\": 5000}" \
    "$HLFS_URL/v1/fetch"
}
is "$(fetch)" 503 "no submission while the Redis refuses writes"
# a replica comes: the Redis takes writes again
RPORT=$(freeport)
bg replica redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$T_DIR" --logfile "" --protected-mode no --replicaof 127.0.0.1 "$REDIS_PORT"
writable() { [ "$(redis-cli -p "$REDIS_PORT" SET probe 1)" = OK ]; }
wait_for 20 writable || bail "the replica never came"
fetched() { [ "$(fetch)" = 200 ]; }
wait_for 20 fetched
ok "a page is fetched through the same connection once the Redis takes writes" fetched
done_testing
