#!/bin/bash
# timeout: 60
# hlfs/state/store.c against a fresh redis-server: replies, the pending cap,
# EVALSHA with the NOSCRIPT fallback, reconnection after the server drops
# the connection, and the reply deadline (CLIENT PAUSE).
. "$WPFS_ROOT/tests/lib.sh"

start_redis
REDIS_PORT=$REDIS_PORT "$WPFS_BIN/itest/itest_store"
is "$?" 0 "itest_store passed"
done_testing
