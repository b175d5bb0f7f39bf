#!/bin/bash
# timeout: 120
# The gateway's Redis scripts through hlfs/state/state.h on a fresh redis-server:
# queue order, dedup, quotas, politeness state, lease expiry and reaping,
# renewal, robots records, at-least-once results, fair shares (100,000 URLs
# of one client against 100 of another), weights, priorities, shards;
# coalescing of one URL asked by several clients; redirect records; the
# retry policy's requeues and records.
. "$WPFS_ROOT/tests/lib.sh"

start_redis
REDIS_PORT=$REDIS_PORT "$WPFS_BIN/itest/itest_state"
is "$?" 0 "itest_state passed"
REDIS_PORT=$REDIS_PORT "$WPFS_BIN/itest/itest_coalesce"
is "$?" 0 "itest_coalesce passed (one claim for one URL, whoever asked)"
REDIS_PORT=$REDIS_PORT "$WPFS_BIN/itest/itest_follow"
is "$?" 0 "itest_follow passed (redirect records along a chain)"
REDIS_PORT=$REDIS_PORT "$WPFS_BIN/itest/itest_retry"
is "$?" 0 "itest_retry passed (tries until the maximum, a lost fetcher uncounted, records gone)"
# The server's view after the last test: no script error, nothing pending.
errs=$(redis-cli -p "$REDIS_PORT" INFO errorstats | grep -c '^errorstat_ERR')
is "$errs" 0 "redis counted no script errors"
done_testing
