#!/bin/bash
# timeout: 180
# lane: beside (mostly waits: tests/run.sh)
# The state Redis comes back without its last writes (a restart from an
# older snapshot; a failover to a replica that lagged is the same to the
# gateway). 40 sites with Crawl-delay: 10: every robots.txt is fetched, a
# snapshot is taken, the first pages are fetched a Crawl-delay later (their
# leases, completions and next allowed times are written after the
# snapshot), then Redis is killed and restarted from the snapshot. Both
# gateways see another server (its run_id), set the fence and hold every
# claim for lease_ms + max_delay_ms: the sites see no request before its
# Crawl-delay, although the state says the first pages are still to fetch
# and the sites are due. Every URL still gets a result (the first pages
# twice: at-least-once). FAILOVER_HOLD_MS=1 (no fence) breaks the
# Crawl-delay: that is the negative of this test.
. "$WPFS_ROOT/tests/lib.sh"
SITES=40 PAGES=2 DELAY=10
start_testweb --generate "sites=$SITES,pages=10,crawl_delay=$DELAY"
start_llfs
REDIS_PORT=$(freeport)
redis() {
  bg redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --appendonly no --save '' \
    --dbfilename snap.rdb --dir "$T_DIR" --logfile "" --protected-mode no
  RPID=$BG_PID
  wait_for 10 redis-cli -p "$REDIS_PORT" ping >/dev/null
}
redis
HOLD=${FAILOVER_HOLD_MS:-0}
for g in a b; do
  start_hlfs "$g" --token dev-token --lease-ms 2000 --max-delay-ms "$((DELAY + 1))s" \
    --min-delay-ms 100 --delay-factor 0 --failover-hold-ms "$HOLD" --poll-ms 100
done
export WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=dev-token
for i in $(seq 1 $SITES); do
  for k in $(seq 1 $PAGES); do tw_url "127.10.0.$i" "/p/$k.html"; done
done >"$T_DIR/urls"
"$WPFS_BIN/wpfs" submit "$T_DIR/urls" >/dev/null 2>"$T_DIR/submit.err"
ok "$((SITES * PAGES)) URLs accepted" grep -q "$((SITES * PAGES)) accepted" "$T_DIR/submit.err"
robots_in() { [ "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'r:{0}*' | wc -l)" -ge "$SITES" ]; }
ok "every robots.txt fetched" wait_for 60 robots_in
is "$(redis-cli -p "$REDIS_PORT" SAVE)" OK "a snapshot, before any page"
is "$(results_len)" 0 "... holding no result"
all_first() { [ "$(results_len)" -ge "$SITES" ]; }
ok "then the first page of every site" wait_for 30 all_first
kill -KILL "$RPID"
wait "$RPID" 2>/dev/null
redis
is "$(results_len)" 0 "Redis is back without them"
changed() { grep -q "is another server" "$T_DIR/hlfs-a.log" && grep -q "is another server" "$T_DIR/hlfs-b.log"; }
ok "both gateways saw another server" wait_for 30 changed
: >"$T_DIR/got"
urls_done() {
  "$WPFS_BIN/wpfs" results --max 1000 2>/dev/null | jq -r .url >>"$T_DIR/got"
  [ "$(sort -u "$T_DIR/got" | wc -l)" -ge $((SITES * PAGES)) ]
}
ok "every URL has a result" wait_for 120 urls_done
echo "# results after the restart: $(wc -l <"$T_DIR/got") read, $(sort -u "$T_DIR/got" | wc -l) distinct URLs"
read -r over early min_gap <<<"$(tw_gaps "$SITES" $((DELAY * 1000)))"
echo "# smallest gap at any site: $min_gap ms (Crawl-delay ${DELAY} s), $early sites asked early"
is "$over" 0 "no two requests at a site at once"
is "$early" 0 "no request before its Crawl-delay"
done_testing
