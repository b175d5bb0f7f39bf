#!/bin/bash
# timeout: 240
# lane: beside (mostly waits: tests/run.sh)
# The state Redis fails over under a crawl. Three redis-server (a master,
# two replicas) and three sentinels; two gateways find the master through
# the sentinels; the page cache is the state Redis itself. 40 sites with
# Crawl-delay: 10 answer each request 1.5 s after it; with their first
# pages in flight the master is killed (SIGKILL). The sentinels promote a
# replica; the gateways follow it without a restart, see another server,
# fence their claims and write their politeness again (the roll call:
# docs/hlfs-state.md, "Failover"). The pages that came during the outage
# are held and stored once it is over: every result is ok and no site is
# asked for anything twice. Ten sites submitted during the failover are
# asked as soon as the fence lifts (the pause), and testweb shows no two
# requests at a site at once and no request before its Crawl-delay.
# Then the old master comes back as a master, and no gateway connects to
# it. (Writes a new server never got: tests/e2e/redis_lost_writes.sh.)
. "$WPFS_ROOT/tests/lib.sh"
SITES=40 PAGES=2 DELAY=10 FRESH=10
# every answer takes 1.5 s: the master dies with the first pages in flight
start_testweb --generate "sites=$((SITES + FRESH)),pages=10,crawl_delay=$DELAY,hold_ms=1500"
start_llfs
read -r P1 P2 P3 S1 S2 S3 <<<"$(freeport 6 | tr '\n' ' ')"
redis() {  # port [args...]
  local p=$1
  shift
  bg "redis-$p" redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$T_DIR" --logfile "" --protected-mode no "$@"
}
redis "$P1"
M_PID=$BG_PID
redis "$P2" --replicaof 127.0.0.1 "$P1"
redis "$P3" --replicaof 127.0.0.1 "$P1"
for s in "$S1" "$S2" "$S3"; do
  cat >"$T_DIR/sentinel-$s.conf" <<CONF
port $s
bind 127.0.0.1
protected-mode no
dir $T_DIR
sentinel monitor wpfs 127.0.0.1 $P1 2
sentinel down-after-milliseconds wpfs 1000
sentinel failover-timeout wpfs 10000
sentinel parallel-syncs wpfs 2
CONF
  bg "sentinel-$s" redis-server "$T_DIR/sentinel-$s.conf" --sentinel
done
synced() { [ "$(redis-cli -p "$P1" INFO replication | grep -c '^slave[0-9]:.*state=online')" = 2 ]; }
ok "master with two replicas online" wait_for 20 synced
master_port() { redis-cli -p "$S1" SENTINEL get-master-addr-by-name wpfs | sed -n 2p; }
known() { [ "$(redis-cli -p "$S1" SENTINEL replicas wpfs | grep -c '^flags$')" -ge 2 ] &&
          [ "$(redis-cli -p "$S1" SENTINEL sentinels wpfs | grep -c '^flags$')" -ge 2 ]; }
ok "the sentinels know the replicas and each other" wait_for 30 known
is "$(master_port)" "$P1" "the sentinels name the master"

for g in a b; do
  REDIS_PORT=1 start_hlfs "$g" --token dev-token \
    --redis-sentinels "127.0.0.1:$S1,127.0.0.1:$S2,127.0.0.1:$S3" --redis-master wpfs \
    --lease-ms 10s --max-delay-ms "$((DELAY + 1))s" --min-delay-ms 100 --delay-factor 0 \
    --poll-ms 100
done
export WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=dev-token
for i in $(seq 1 $SITES); do
  for k in $(seq 1 $PAGES); do tw_url "127.10.0.$i" "/p/$k.html"; done
done >"$T_DIR/urls"
"$WPFS_BIN/wpfs" submit "$T_DIR/urls" >/dev/null 2>"$T_DIR/submit.err"
ok "$((SITES * PAGES)) URLs accepted" grep -q "$((SITES * PAGES)) accepted" "$T_DIR/submit.err"
# every submission on the replicas before anything else happens
is "$(printf 'SET wpfs-test-sync 1\nWAIT 2 5000\n' | redis-cli -p "$P1" | tail -1)" 2 \
  "the submissions reached both replicas (WAIT)"

# mid-crawl: every robots.txt is in; the master dies as the first pages
# come a Crawl-delay later, fetches in flight
xlen() { redis-cli -p "$1" XLEN 'x:{0}dev'; }
robots_in() { [ "$(redis-cli -p "$P1" --scan --pattern 'r:{0}*' | wc -l)" -ge "$SITES" ]; }
ok "the crawl is under way (every robots.txt fetched)" wait_for 60 robots_in
in_flight() { curl -s "$TESTWEB_CTL/stats" | jq .in_flight; }
some() { [ "$(in_flight)" -ge 30 ]; }
ok "the first pages are being fetched" wait_for 30 some
at_kill=$(in_flight)
kill -KILL "$M_PID"
t_kill=$(date +%s%6N)
echo "# master killed with $at_kill pages in flight, $(xlen "$P2") results on a replica"
# sites untouched before: asked as soon as the fence lifts (wpfs submit
# waits out the 503s of the failover)
for i in $(seq $((SITES + 1)) $((SITES + FRESH))); do tw_url "127.10.0.$i" /p/1.html; done \
  >"$T_DIR/fresh"
"$WPFS_BIN/wpfs" submit "$T_DIR/fresh" >"$T_DIR/fresh.out" 2>&1 &
FRESH_PID=$!
promoted() { p=$(master_port); [ -n "$p" ] && [ "$p" != "$P1" ]; }
ok "a sentinel promoted a replica" wait_for 60 promoted
NEW=$(master_port)
echo "# new master on port $NEW"
followed() { grep -q "is another server" "$T_DIR/hlfs-a.log" && grep -q "is another server" "$T_DIR/hlfs-b.log"; }
ok "both gateways followed it and saw another server" wait_for 60 followed
cmp_ge "$(redis-cli -p "$NEW" HGET 'h:{0}' fence)" 1 "the fence is set on the new master"
wait "$FRESH_PID"
ok "$FRESH URLs of other sites accepted through the failover" grep -q "$FRESH accepted" "$T_DIR/fresh.out"
fresh_asked() {
  for i in $(seq $((SITES + 1)) $((SITES + FRESH))); do
    [ "$(tw_site_field "127.10.0.$i" .request_count)" -ge 1 ] || return 1
  done
}
ok "...and their sites asked" wait_for 60 fresh_asked
first=$(for i in $(seq $((SITES + 1)) $((SITES + FRESH))); do
  tw_site_field "127.10.0.$i" .first_arrive_us; done | sort -n | head -1)
pause=$(( (first - t_kill) / 1000 ))
promoted_after=$(grep -h "is another server" "$T_DIR"/hlfs-[ab].log | head -1 | jq -r .ts)
echo "# first request to a fresh site $pause ms after the kill (another server seen at $promoted_after; the whole fence: 21000 ms)"
cmp_le "$pause" 9000 "the fleet's pause is the failover's detection, not the whole fence (lease_ms + max_delay_ms)"

# every URL gets its result
urls_done() {
  "$WPFS_BIN/wpfs" results --max 1000 2>/dev/null | tee -a "$T_DIR/got.json" | jq -r .url >>"$T_DIR/got"
  [ "$(sort -u "$T_DIR/got" | wc -l)" -ge $((SITES * PAGES + FRESH)) ]
}
: >"$T_DIR/got"
ok "every URL submitted has a result" wait_for 150 urls_done
echo "# results: $(wc -l <"$T_DIR/got") read, $(sort -u "$T_DIR/got" | wc -l) distinct URLs"
is "$(comm -23 <(sort -u "$T_DIR/urls" "$T_DIR/fresh") <(sort -u "$T_DIR/got") | wc -l)" 0 "none lost"
is "$(jq -r .outcome "$T_DIR/got.json" | sort -u | tr '\n' ' ')" "ok " \
  "every result ok: the pages in flight at the kill were held and stored, not lost"
twice=0
for i in $(seq 1 $SITES); do
  n=$(tw_site_json "127.10.0.$i" "last=20" | jq '[.requests[].path] | group_by(.) | map(length) | max')
  [ "$n" -gt 1 ] && twice=$((twice + 1))
done
is "$twice" 0 "no site was asked for anything twice"

# politeness across the failover, as the sites saw it
read -r over early min_gap <<<"$(tw_gaps "$SITES" $((DELAY * 1000)))"
echo "# smallest gap at any site: $min_gap ms (Crawl-delay ${DELAY} s)"
is "$over" 0 "no two requests at a site at once"
is "$early" 0 "no request before its Crawl-delay"
ok "the gateways are alive" sh -c "curl -sf 127.0.0.1:$HLFS_PORT_a/healthz >/dev/null &&
  curl -sf 127.0.0.1:$HLFS_PORT_b/healthz >/dev/null"

# The old master comes back as a master of its own (empty, stale) data, as
# a restart from its own AOF would: the sentinels name the new master (a
# later epoch) and turn it into a replica; meanwhile no gateway connects
# to it, since a gateway goes only where the sentinels point and leaves a
# server whose ROLE is not master.
redis "$P1"
wait_for 5 redis-cli -p "$P1" ping >/dev/null || bail "the old master did not restart"
gw_conns() {  # ordinary clients but the sentinels and this redis-cli
  redis-cli -p "$P1" CLIENT LIST | grep 'flags=N' | grep -v 'name=sentinel' |
    grep -vc 'cmd=client'
}
: >"$T_DIR/old-master"
for i in 1 2 3 4 5; do tw_url "127.10.0.$i" /p/7.html; done >"$T_DIR/urls3"
"$WPFS_BIN/wpfs" submit "$T_DIR/urls3" >/dev/null 2>&1
while [ "$(redis-cli -p "$P1" ROLE | head -1)" = master ]; do
  gw_conns >>"$T_DIR/old-master"
  "$WPFS_BIN/wpfs" results --max 10 >/dev/null 2>&1
  sleep 0.2
  [ "$(wc -l <"$T_DIR/old-master")" -ge 150 ] && break
done
echo "# the old master was a master for $(wc -l <"$T_DIR/old-master") looks (0.2 s apart)"
is "$(redis-cli -p "$P1" ROLE | head -1)" slave "the sentinels made the old master a replica"
is "$(sort -u "$T_DIR/old-master" | tr '\n' ' ')" "0 " "no gateway connected to it while it was a master"
done_testing
