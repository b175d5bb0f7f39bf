#!/bin/bash
# make run: a local stack in the foreground — redis-server for the state (AOF
# on, never evicts), a second redis-server for the page cache (memory capped,
# least recently used pages evicted, nothing persisted), llfs and, once
# built, hlfs. Ctrl-C or SIGTERM stops all of them.
#   WPFS_PORT (gateway, default 8080), WPFS_LLFS_PORT (default 8081),
#   WPFS_REDIS_PORT (default 6390), WPFS_CACHE_REDIS_PORT (default 6391),
#   WPFS_CACHE_MAXMEMORY (the page cache's size, default 256mb), WPFS_ALLOW_CIDRS (default 127.0.0.0/8 so
#   that the local test web can be fetched), WPFS_USER_AGENT, WPFS_TOKEN,
#   WPFS_MIN_DELAY_MS, WPFS_DELAY_FACTOR: passed through to the services.
set -euo pipefail
: "${WPFS_BIN:=$(cd "$(dirname "$0")/../.." && pwd)/bin}"
state=${WPFS_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/wpfs}
mkdir -p "$state"
export WPFS_ALLOW_CIDRS=${WPFS_ALLOW_CIDRS:-127.0.0.0/8}
export WPFS_TOKEN=${WPFS_TOKEN:-dev-token}
gw_port=${WPFS_PORT:-8080}
llfs_port=${WPFS_LLFS_PORT:-8081}
redis_port=${WPFS_REDIS_PORT:-6390}
cache_port=${WPFS_CACHE_REDIS_PORT:-6391}
cache_max=${WPFS_CACHE_MAXMEMORY:-256mb}
pids=()

stop() {
  trap - INT TERM EXIT
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "wpfs: stopped" >&2
}
trap stop INT TERM EXIT

redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$state" \
  --appendonly yes --appendfsync everysec --save '' --logfile "$state/redis.log" \
  --zset-max-listpack-value 256 --zset-max-listpack-entries 1024 &
pids+=($!)
redis-server --port "$cache_port" --bind 127.0.0.1 --dir "$state" \
  --appendonly no --save '' --logfile "$state/redis-cache.log" \
  --maxmemory "$cache_max" --maxmemory-policy allkeys-lru --maxmemory-samples 10 &
pids+=($!)
for p in "$redis_port" "$cache_port"; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
"$WPFS_BIN/llfs" --listen-port "$llfs_port" &
pids+=($!)
if [ -x "$WPFS_BIN/hlfs" ]; then
  "$WPFS_BIN/hlfs" --listen-port "$gw_port" --redis "127.0.0.1:$redis_port" \
    --cache-redis "127.0.0.1:$cache_port" --llfs "http://127.0.0.1:$llfs_port" &
  pids+=($!)
fi
sleep 0.5
cat >&2 <<MSG
wpfs: redis on 127.0.0.1:$redis_port (AOF in $state), page cache redis on
      127.0.0.1:$cache_port ($cache_max, allkeys-lru), llfs on 127.0.0.1:$llfs_port
MSG
if [ -x "$WPFS_BIN/hlfs" ]; then
  echo "wpfs: gateway on http://127.0.0.1:$gw_port" >&2
fi
cat >&2 <<MSG
try:  curl -s 127.0.0.1:$gw_port/v1/fetch -H 'Authorization: Bearer $WPFS_TOKEN' \\
        -d '{"url": "http://127.0.0.1:$gw_port/healthz"}'
Ctrl-C stops everything.
MSG
wait -n "${pids[@]}" || true
