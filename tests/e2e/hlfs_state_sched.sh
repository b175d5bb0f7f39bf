#!/bin/bash
# timeout: 180
# lane: beside (mostly waits: tests/run.sh)
# The scheduler (hlfs/sched/sched.c) on a fresh redis-server with a recording fake
# fetch: politeness gaps, Retry-After and backoff, robots.txt first, lease
# renewal and loss, clean stop, fairness under concurrency, and two
# scheduler processes sharing the Redis, one killed with SIGKILL mid-run:
# every request completed exactly once, never two fetches of a site at once.
. "$WPFS_ROOT/tests/lib.sh"

start_redis
REDIS_PORT=$REDIS_PORT "$WPFS_BIN/itest/itest_sched"
is "$?" 0 "itest_sched passed"
done_testing
