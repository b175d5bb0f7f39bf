#!/bin/bash
# timeout: 150
# lane: beside (mostly waits: tests/run.sh)
# One fetch budget for the whole fleet (--fleet-budget): the replicas with
# a heartbeat share it equally, so adding gateways does not add load on
# the Web or on the fetchers. Two gateways with a fleet budget of 6 never
# have more than 6 requests at the sites at once (testweb's count over
# every site), and both use their share; when one stops, the other takes
# the whole budget once the heartbeat of the stopped one is gone.
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate "sites=30,pages=10,hold_ms=300"
start_redis
start_llfs
for g in a b; do
  start_hlfs "$g" --token dev-token --fleet-budget 6 --budget 100 --min-delay-ms 0 \
    --delay-factor 0 --poll-ms 100
done
budget() { curl -s "127.0.0.1:$1/metrics" | awk '$1 == "hlfs_sched_budget" { print $2 }'; }
shared() { [ "$(budget "$HLFS_PORT_a")" = 3 ] && [ "$(budget "$HLFS_PORT_b")" = 3 ]; }
ok "each of two gateways has 3 of the fleet's 6" wait_for 15 shared
for i in $(seq 1 30); do for k in 1 2 3 4 5 6; do tw_url "127.10.0.$i" "/p/$k.html"; done; done |
  WPFS_GATEWAY=http://127.0.0.1:$HLFS_PORT_b WPFS_TOKEN=dev-token "$WPFS_BIN/wpfs" submit - >/dev/null 2>&1
half() { [ "$(results_len)" -ge 90 ]; }
ok "half the crawl done" wait_for 60 half
max=$(tw_stats | jq -r .max_in_flight)
echo "# requests at the sites at once, at most: $max (fleet budget 6)"
cmp_le "$max" 6 "never more than the fleet budget at the sites"
cmp_ge "$max" 5 "...and both gateways used their share"
kill -TERM "$HLFS_PID_b"
alone() { [ "$(budget "$HLFS_PORT_a")" = 6 ]; }
ok "alone, the other gateway takes the whole budget (after the heartbeat's 15 s)" wait_for 30 alone
all() { [ "$(results_len)" -ge 180 ]; }
ok "the crawl ends" wait_for 90 all
cmp_le "$(tw_stats | jq -r .max_in_flight)" 6 "still never more than 6"
done_testing
