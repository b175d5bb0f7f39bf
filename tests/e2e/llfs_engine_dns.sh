#!/bin/bash
# timeout: 90
# The fetch engine's resolver (llfs/dns.c) against a real dnsmasq: cache,
# TTLs, negative caching and coalescing proven from the server's query log.
. "$WPFS_ROOT/tests/lib.sh"

start_dnsmasq 300
export DNS_SERVER DNS_LOG
"$WPFS_BIN/itest/itest_dns"
is "$?" 0 "itest_dns passed"
# The server's own view, independently of the program's assertions.
is "$(dns_query_count site7.test)" 1 "200 concurrent resolves of one name: one A query"
is "$(dns_query_count site5.test)" 1 "six resolves within the TTL: one A query"
is "$(dns_query_count nx1.test)" 2 "NXDOMAIN cached for negative_ttl_s, then asked again"
done_testing
