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
# The fence is no longer than it must be: each gateway writes again the
# next allowed times and leases it wrote lately (its journal) and answers
# the fence's roll call; once both have, claims go on. Ten sites submitted
# after the restart are asked within seconds, not lease_ms + max_delay_ms
# (13 s) later, and still no site is asked early. FAILOVER_JOURNAL=0 (no
# journal: the fence holds its whole time) fails the first;
# FAILOVER_JOURNAL=0 FAILOVER_HOLD_MS=1 fails the second.
. "$WPFS_ROOT/tests/lib.sh"
SITES=40 PAGES=2 DELAY=10 FRESH=10
start_testweb --generate "sites=$((SITES + FRESH)),pages=10,crawl_delay=$DELAY"
start_llfs
REDIS_PORT=$(freeport)
redis() {
  bg redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --appendonly no --save '' \
    --dbfilename snap.rdb --dir "$T_DIR" --logfile "" --protected-mode no
  RPID=$BG_PID
  wait_for 10 redis-cli -p "$REDIS_PORT" ping >/dev/null
}
redis
HOLD=${FAILOVER_HOLD_MS:-0} JOURNAL=${FAILOVER_JOURNAL:-262144}
for g in a b; do
  start_hlfs "$g" --token dev-token --lease-ms 2000 --max-delay-ms "$((DELAY + 1))s" \
    --min-delay-ms 100 --delay-factor 0 --failover-hold-ms "$HOLD" --poll-ms 100 \
    --failover-journal "$JOURNAL"
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
t_restart=$(date +%s%6N)
redis
is "$(results_len)" 0 "Redis is back without them"
changed() { grep -q "is another server" "$T_DIR/hlfs-a.log" && grep -q "is another server" "$T_DIR/hlfs-b.log"; }
ok "both gateways saw another server" wait_for 30 changed
for i in $(seq $((SITES + 1)) $((SITES + FRESH))); do tw_url "127.10.0.$i" /p/1.html; done \
  >"$T_DIR/fresh"
submitted() { "$WPFS_BIN/wpfs" submit "$T_DIR/fresh" 2>&1 | grep -q "$FRESH accepted"; }
ok "$FRESH URLs of other sites accepted after the restart" wait_for 10 submitted
fresh_asked() {
  for i in $(seq $((SITES + 1)) $((SITES + FRESH))); do
    [ "$(tw_site_field "127.10.0.$i" .request_count)" -ge 1 ] || return 1
  done
}
ok "...and their sites asked" wait_for 30 fresh_asked
first=$(for i in $(seq $((SITES + 1)) $((SITES + FRESH))); do
  tw_site_field "127.10.0.$i" .first_arrive_us; done | sort -n | head -1)
pause=$(( (first - t_restart) / 1000 ))
echo "# the first request after the restart came $pause ms after it (the fence holds up to 13000)"
lifted() { grep -q "the fence is lifted" "$T_DIR/hlfs-a.log" || grep -q "the fence is lifted" "$T_DIR/hlfs-b.log"; }
ok "the roll call lifted the fence" lifted
cmp_le "$pause" 5000 "claims went on within 5 s of the restart, not after lease_ms + max_delay_ms"
: >"$T_DIR/got"
urls_done() {
  "$WPFS_BIN/wpfs" results --max 1000 2>/dev/null | jq -r .url >>"$T_DIR/got"
  [ "$(sort -u "$T_DIR/got" | wc -l)" -ge $((SITES * PAGES + FRESH)) ]
}
ok "every URL has a result" wait_for 120 urls_done
grep -q '^hlfs_state_reapplied_total [1-9]' <(curl -s "$HLFS_URL/metrics")
ok "the sites' politeness was written again (hlfs_state_reapplied_total)" test $? = 0
echo "# results after the restart: $(wc -l <"$T_DIR/got") read, $(sort -u "$T_DIR/got" | wc -l) distinct URLs"
read -r over early min_gap <<<"$(tw_gaps "$SITES" $((DELAY * 1000)))"
echo "# smallest gap at any site: $min_gap ms (Crawl-delay ${DELAY} s), $early sites asked early"
is "$over" 0 "no two requests at a site at once"
is "$early" 0 "no request before its Crawl-delay"
done_testing
