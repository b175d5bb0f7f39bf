#!/bin/bash
# timeout: 180
# lane: beside (mostly waits: tests/run.sh)
# The state Redis set of deploy/k8s/redis.yaml, run here as three "pods"
# on three loopback addresses, each a redis-server and a sentinel started
# by deploy/k8s/config/redis-ha.sh with the image's redis.conf (its data
# directory changed), as the pods start them. The set comes up with the first pod as master; a gateway
# finds it through the sentinels. The master pod dies (both processes,
# SIGKILL): the sentinels promote another, and the gateway follows. The
# dead pod restarts and comes back as a replica of the new master (it asked
# the sentinels), not as a second master; a pod whose sentinels are all
# new starts as the first host's master, so that case is checked too.
. "$WPFS_ROOT/tests/lib.sh"
HA=$WPFS_ROOT/deploy/k8s/config/redis-ha.sh
CONF=$WPFS_ROOT/deploy/k8s/config/redis.conf
read -r PORT SPORT <<<"$(freeport 2 | tr '\n' ' ')"
NET=127.77.$((RANDOM % 200 + 20))
HOSTS="$NET.1 $NET.2 $NET.3"
declare -A SRV SEN

pod() {  # k: start pod k's server and sentinel
  local k=$1 self=$NET.$1
  mkdir -p "$T_DIR/pod$k"
  # the image's file; only its data directory is this pod's (it must exist)
  sed "s#^dir /data\$#dir $T_DIR/pod$k#" "$CONF" >"$T_DIR/pod$k/redis.conf"
  export WPFS_REDIS_HOSTS=$HOSTS WPFS_REDIS_PORT=$PORT WPFS_SENTINEL_PORT=$SPORT \
    WPFS_SENTINEL_DOWN_MS=1000 WPFS_SENTINEL_DIR=$T_DIR/pod$k WPFS_SENTINEL_BIND=$self \
    WPFS_REDIS_SELF=$self
  bg "pod$k-redis" sh "$HA" "$T_DIR/pod$k/redis.conf" --port "$PORT" --bind "$self" \
    --maxmemory 64mb
  SRV[$k]=$BG_PID
  wait_for 10 redis-cli -h "$self" -p "$PORT" ping >/dev/null || bail "pod $k: no redis"
  bg "pod$k-sentinel" sh "$HA" sentinel
  SEN[$k]=$BG_PID
  wait_for 10 redis-cli -h "$self" -p "$SPORT" ping >/dev/null || bail "pod $k: no sentinel"
}
role() { redis-cli -h "$NET.$1" -p "$PORT" ROLE | head -1; }
master_of() { redis-cli -h "$NET.$1" -p "$PORT" INFO replication | sed -n 's/^master_host://p' | tr -d '\r'; }
named() { redis-cli -h "$NET.$1" -p "$SPORT" SENTINEL get-master-addr-by-name wpfs | head -1; }

pod 1
pod 2
pod 3
is "$(role 1)" master "pod 1 starts as the master (no sentinel knew one)"
is "$(role 2) $(master_of 2)" "slave $NET.1" "pod 2 starts as its replica"
is "$(role 3) $(master_of 3)" "slave $NET.1" "pod 3 too"
ok "pod 1's log says why" grep -q "no sentinel names a master: the first host" "$T_DIR/pod1-redis.log"
ok "pod 3's log: a sentinel named the master" grep -q "names $NET.1 as master" "$T_DIR/pod3-redis.log"
known() { [ "$(redis-cli -h "$NET.1" -p "$SPORT" SENTINEL sentinels wpfs | grep -c '^flags$')" -ge 2 ] &&
          [ "$(redis-cli -h "$NET.1" -p "$SPORT" SENTINEL replicas wpfs | grep -c '^flags$')" -ge 2 ]; }
ok "the sentinels know each other and the replicas" wait_for 30 known

start_testweb --generate "sites=5,pages=10"
start_llfs
SENTINELS="$NET.1:$SPORT,$NET.2:$SPORT,$NET.3:$SPORT"
REDIS_PORT=1 start_hlfs a --token dev-token --redis-sentinels "$SENTINELS" --redis-master wpfs \
  --min-delay-ms 10 --delay-factor 0 --poll-ms 100 --lease-ms 2000 --max-delay-ms 1s
export WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=dev-token
for i in 1 2 3 4 5; do tw_url "127.10.0.$i" /p/1.html; done | "$WPFS_BIN/wpfs" submit - >/dev/null 2>&1
got() {  # n: at least n results read in all
  "$WPFS_BIN/wpfs" results --max 100 >>"$T_DIR/got" 2>/dev/null
  [ "$(wc -l <"$T_DIR/got")" -ge "$1" ]
}
: >"$T_DIR/got"
ok "the gateway works through the sentinels" wait_for 30 got 5

kill -KILL "${SRV[1]}" "${SEN[1]}"
# submitted while the master is gone: the gateway answers 503 with
# Retry-After until it follows the new one, and the CLI waits that out
for i in 1 2 3 4 5; do tw_url "127.10.0.$i" /p/2.html; done >"$T_DIR/urls2"
"$WPFS_BIN/wpfs" submit "$T_DIR/urls2" >/dev/null 2>"$T_DIR/submit2.err" &
SUBMIT=$!
promoted() { m=$(named 2); [ -n "$m" ] && [ "$m" != "$NET.1" ]; }
ok "the sentinels promote a replica" wait_for 60 promoted
NEW=$(named 2)
echo "# new master: $NEW"
is "$(redis-cli -h "$NEW" -p "$PORT" ROLE | head -1)" master "...which is now a master"
wait "$SUBMIT"
is "$?" 0 "URLs submitted during the failover are accepted in the end"
ok "...all five" grep -q "5 accepted" "$T_DIR/submit2.err"
ok "the gateway follows the new master and fetches them" wait_for 60 got 10

pod 1
is "$(role 1)" slave "the restarted pod 1 is a replica"
is "$(master_of 1)" "$NEW" "...of the new master, not a second master"
ok "...because a sentinel named it" grep -q "names $NEW as master" "$T_DIR/pod1-redis.log"
masters=0
for k in 1 2 3; do [ "$(role "$k")" = master ] && masters=$((masters + 1)); done
is "$masters" 1 "one master in the set"
synced() { redis-cli -h "$NEW" -p "$PORT" INFO replication | grep -q "ip=$NET.1,.*state=online"; }
ok "pod 1 syncs from the new master" wait_for 30 synced
done_testing
