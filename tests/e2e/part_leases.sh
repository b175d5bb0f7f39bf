#!/bin/bash
# timeout: 60
# The partition map and the Redis functions of a crawl on several
# processes (clients/part/) against a fresh redis-server: shares, claims
# and releases, the crawl's partitions fixed by its first member, fencing
# of a member whose lease lapsed, links read and counted, the end of the
# crawl (tests/integ/itest_part.c).
. "$WPFS_ROOT/tests/lib.sh"

start_redis
REDIS_PORT=$REDIS_PORT "$WPFS_BIN/itest/itest_part"
is "$?" 0 "itest_part passed"
done_testing
