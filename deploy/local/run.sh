#!/bin/bash
# make run: a local stack in the foreground — redis-server for the state (AOF
# on, never evicts), a second redis-server for the page cache (memory capped,
# least recently used pages evicted, nothing persisted), llfs and hlfs. The
# banner is printed once every service answers /readyz; a service that does
# not come up stops everything, named, with its last log lines, and the
# exit status is 1. Ctrl-C or SIGTERM stops all of them.
#   WPFS_PORT (gateway, default 8080), WPFS_LLFS_PORT (default 8081),
#   WPFS_REDIS_PORT (default 6390), WPFS_CACHE_REDIS_PORT (default 6391),
#   WPFS_CACHE_MAXMEMORY (the page cache's size, default 256mb),
#   WPFS_ALLOW_CIDRS (the fetcher's, default 127.0.0.0/8 so that the local
#   test web can be fetched), WPFS_TOKEN (the development API key, default
#   dev-token), WPFS_USER_AGENT, WPFS_MIN_DELAY_MS, WPFS_DELAY_FACTOR: this
#   script's knobs, passed as flags to the service they belong to (and kept
#   out of the services' environments, which would otherwise report them as
#   not theirs). Any other setting: the service's own variable (WPFS_HLFS_*,
#   WPFS_LLFS_*; see `hlfs --help`), which reaches only that service; where
#   a knob and the service's own variable name one setting, the knob wins
#   and the other is reported as not read, as are the services' addresses
#   this script chooses itself (WPFS_HLFS_REDIS, WPFS_HLFS_CACHE_REDIS,
#   WPFS_HLFS_LLFS).
#   WPFS_FETCHER_SECRET: the secret llfs wants from hlfs (default: a new
#   random one each run).
#   WPFS_STATE_DIR: where Redis keeps its files and the services' logs go.
set -euo pipefail
: "${WPFS_BIN:=$(cd "$(dirname "$0")/../.." && pwd)/bin}"
state=${WPFS_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/wpfs}
mkdir -p "$state"

# pick KNOB OWN DEFAULT: the knob, else the service's own variable, else the
# default. With both set to different values the service's is not read.
pick() {
  local knob=$1 own=$2
  if [ -n "${!knob:-}" ] && [ -n "${!own:-}" ] && [ "${!knob}" != "${!own}" ]; then
    echo "wpfs: $own is not read: make run's $knob is used instead" >&2
  fi
  printf '%s' "${!knob:-${!own:-$3}}"
}
for v in WPFS_HLFS_REDIS WPFS_HLFS_CACHE_REDIS WPFS_HLFS_LLFS; do
  [ -n "${!v:-}" ] && echo "wpfs: $v is not read: make run starts its own (WPFS_REDIS_PORT, WPFS_CACHE_REDIS_PORT, WPFS_LLFS_PORT)" >&2
done
token=$(pick WPFS_TOKEN WPFS_HLFS_TOKEN dev-token)
gw_port=$(pick WPFS_PORT WPFS_HLFS_LISTEN_PORT 8080)
llfs_port=$(pick WPFS_LLFS_PORT WPFS_LLFS_LISTEN_PORT 8081)
allow=$(pick WPFS_ALLOW_CIDRS WPFS_LLFS_ALLOW_CIDRS 127.0.0.0/8)
# The knobs are this script's: the services never see them.
knobs=(WPFS_TOKEN WPFS_PORT WPFS_LLFS_PORT WPFS_REDIS_PORT WPFS_CACHE_REDIS_PORT
       WPFS_CACHE_MAXMEMORY WPFS_ALLOW_CIDRS WPFS_USER_AGENT WPFS_MIN_DELAY_MS
       WPFS_DELAY_FACTOR WPFS_STATE_DIR)
service_env=(env)
for v in "${knobs[@]}"; do service_env+=(-u "$v"); done
# The fetcher's shared secret, read from the environment by llfs and hlfs:
# a fresh one for every run unless given.
WPFS_FETCHER_SECRET=${WPFS_FETCHER_SECRET:-$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')}
export WPFS_FETCHER_SECRET
redis_port=${WPFS_REDIS_PORT:-6390}
cache_port=${WPFS_CACHE_REDIS_PORT:-6391}
cache_max=${WPFS_CACHE_MAXMEMORY:-256mb}
pids=()
names=()

stop() {
  trap - INT TERM EXIT
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "wpfs: stopped" >&2
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

started() { pids+=("$1"); names+=("$2"); }

# NAME URL LOG: wait until URL answers 200, or NAME's process is gone.
ready() {
  local name=$1 url=$2 log=$3 pid=${pids[-1]}
  for _ in $(seq 200); do
    curl -sf -o /dev/null "$url" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "wpfs: $name did not start (no answer from $url); its last log lines ($log):" >&2
  tail -5 "$log" >&2 || true
  exit 1
}

redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$state" \
  --appendonly yes --appendfsync everysec --save '' --logfile "$state/redis.log" \
  --zset-max-listpack-value 256 &
started $! redis
redis-server --port "$cache_port" --bind 127.0.0.1 --dir "$state" \
  --appendonly no --save '' --logfile "$state/redis-cache.log" \
  --maxmemory "$cache_max" --maxmemory-policy allkeys-lru --maxmemory-samples 10 &
started $! redis-cache
for p in "$redis_port" "$cache_port"; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
  redis-cli -p "$p" ping >/dev/null 2>&1 || {
    echo "wpfs: redis-server on port $p did not start (see $state/redis*.log)" >&2
    exit 1
  }
done

llfs_args=(--listen-port "$llfs_port" --allow-cidrs "$allow")
"${service_env[@]}" "$WPFS_BIN/llfs" "${llfs_args[@]}" 2> >(tee -a "$state/llfs.log" >&2) &
started $! llfs
ready llfs "http://127.0.0.1:$llfs_port/readyz" "$state/llfs.log"

hlfs_args=(--listen-port "$gw_port" --redis "127.0.0.1:$redis_port"
           --cache-redis "127.0.0.1:$cache_port" --llfs "http://127.0.0.1:$llfs_port"
           --token "$token")
# Unset, the service reads its own variable (WPFS_HLFS_USER_AGENT, ...).
[ -n "${WPFS_USER_AGENT:-}" ] && hlfs_args+=(--user-agent "$(pick WPFS_USER_AGENT WPFS_HLFS_USER_AGENT '')")
[ -n "${WPFS_MIN_DELAY_MS:-}" ] && hlfs_args+=(--min-delay-ms "$(pick WPFS_MIN_DELAY_MS WPFS_HLFS_MIN_DELAY_MS '')")
[ -n "${WPFS_DELAY_FACTOR:-}" ] && hlfs_args+=(--delay-factor "$(pick WPFS_DELAY_FACTOR WPFS_HLFS_DELAY_FACTOR '')")
"${service_env[@]}" "$WPFS_BIN/hlfs" "${hlfs_args[@]}" 2> >(tee -a "$state/hlfs.log" >&2) &
started $! hlfs
ready hlfs "http://127.0.0.1:$gw_port/readyz" "$state/hlfs.log"

cat >&2 <<MSG
wpfs: redis on 127.0.0.1:$redis_port (AOF in $state), page cache redis on
      127.0.0.1:$cache_port ($cache_max, allkeys-lru), llfs on 127.0.0.1:$llfs_port
wpfs: gateway on http://127.0.0.1:$gw_port (ready), development API key: $token
try:  curl -s 127.0.0.1:$gw_port/v1/fetch -H 'Authorization: Bearer $token' \\
        -d '{"url": "http://127.0.0.1:$gw_port/healthz"}'
or:   export WPFS_GATEWAY=http://127.0.0.1:$gw_port WPFS_TOKEN=$token
      $WPFS_BIN/wpfs fetch -i http://127.0.0.1:$gw_port/healthz   (docs/cli.md)
      status page: http://127.0.0.1:$gw_port/status
Ctrl-C stops everything.
MSG
# Whichever stops first, say which, and stop the rest.
rc=0
wait -n "${pids[@]}" || rc=$?
for i in "${!pids[@]}"; do
  kill -0 "${pids[$i]}" 2>/dev/null || echo "wpfs: ${names[$i]} exited (status $rc)" >&2
done
exit "$rc"
