#!/bin/sh
# The state Redis under Redis Sentinel, one pod of a set of three (deploy/k8s/
# redis.yaml): each pod runs a redis-server and a sentinel, and this script
# starts either. Both need the current master before they start:
#  - the sentinels that are up know it (after a failover it is not pod 0);
#  - when none answers, the set is starting from nothing and the first host
#    is the master.
# A server that restarts after a failover therefore comes back as a replica
# of the new master, not as a second master (tests/e2e/deploy_redis_ha.sh).
#
#   redis-ha.sh CONFIG [redis-server options...]   the Redis server
#   redis-ha.sh sentinel                           its sentinel
#
# Environment (deploy/k8s/redis.yaml sets the first two):
#   WPFS_REDIS_HOSTS     the pods' stable names, the first host first
#   WPFS_REDIS_SELF      this pod's name among them
#   WPFS_REDIS_PORT (6379), WPFS_SENTINEL_PORT (26379), WPFS_REDIS_MASTER (wpfs)
#   WPFS_SENTINEL_DIR    writable directory of the sentinel's config (/tmp)
#   WPFS_SENTINEL_BIND   address the sentinel binds (default: all)
#   WPFS_SENTINEL_DOWN_MS  silence after which a master is down (5000)
#   REDISCLI_AUTH        the password (empty: none)
set -eu
: "${WPFS_REDIS_HOSTS:?names of the pods}" "${WPFS_REDIS_SELF:?name of this pod}"
port=${WPFS_REDIS_PORT:-6379}
sport=${WPFS_SENTINEL_PORT:-26379}
name=${WPFS_REDIS_MASTER:-wpfs}
auth=${REDISCLI_AUTH:-}

log() { echo "redis-ha: $*" >&2; }

# The master a sentinel names, or nothing.
ask() {
  timeout 3 redis-cli --no-auth-warning -h "$1" -p "$sport" --raw \
    SENTINEL get-master-addr-by-name "$name" 2>/dev/null | head -n 1
}

master=""
for h in $WPFS_REDIS_HOSTS; do
  [ "$h" = "$WPFS_REDIS_SELF" ] && [ "${1:-}" = sentinel ] && continue
  m=$(ask "$h" || true)
  case $m in ''|ERR*|*' '*) continue ;; esac
  master=$m
  log "the sentinel at $h names $master as master"
  break
done
if [ -z "$master" ]; then
  for h in $WPFS_REDIS_HOSTS; do master=$h; break; done
  log "no sentinel names a master: the first host, $master"
fi

if [ "${1:-}" = sentinel ]; then
  dir=${WPFS_SENTINEL_DIR:-/tmp}
  conf=$dir/sentinel.conf
  {
    echo "port $sport"
    if [ -n "${WPFS_SENTINEL_BIND:-}" ]; then echo "bind $WPFS_SENTINEL_BIND"; fi
    echo "dir $dir"
    echo "protected-mode no"
    echo "sentinel resolve-hostnames yes"
    echo "sentinel announce-hostnames yes"
    echo "sentinel announce-ip $WPFS_REDIS_SELF"
    echo "sentinel monitor $name $master $port 2"
    echo "sentinel down-after-milliseconds $name ${WPFS_SENTINEL_DOWN_MS:-5000}"
    echo "sentinel failover-timeout $name 60000"
    echo "sentinel parallel-syncs $name 1"
    if [ -n "$auth" ]; then echo "sentinel auth-pass $name $auth"; fi
  } >"$conf"
  exec redis-server "$conf" --sentinel
fi

set -- "$@" --replica-announce-ip "$WPFS_REDIS_SELF"
# A master cut off from both replicas (paused, partitioned) refuses writes
# after 10 s instead of taking ones a failover would lose; the gateways
# leave it for the master the sentinels name (docs/operations.md).
set -- "$@" --min-replicas-to-write 1 --min-replicas-max-lag 10
if [ -n "$auth" ]; then set -- "$@" --masterauth "$auth"; fi
if [ "$master" = "$WPFS_REDIS_SELF" ]; then
  log "starting as the master"
  exec redis-server "$@"
fi
log "starting as a replica of $master"
exec redis-server "$@" --replicaof "$master" "$port"
