#!/bin/bash
# timeout: 120
# The image's moving parts, run here: the entrypoint (program chosen by the
# first argument, exec'd so that it is PID 1's program and gets SIGTERM), the
# curl-free healthcheck, and Redis with the image's redis.conf (AOF on: a
# write survives a restart). Then the stack as Kubernetes wires it, in a
# private network namespace like a pod's: both Redis, llfs and hlfs on their
# default ports, with the settings of the ConfigMaps in deploy/k8s and the
# Service names resolving to loopback; the gateway must become ready.
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no root"
ep=deploy/container/entrypoint.sh

# A bin directory laid out as the image's /usr/local/bin.
img="$T_DIR/img"
mkdir -p "$img"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$img/wpfs-healthcheck" deploy/container/healthcheck.c ||
  bail "healthcheck.c does not build"
for p in llfs hlfs wpfs wpfs-url wpfs-robots wpfs-discover; do
  [ -x "$WPFS_BIN/$p" ] && ln -s "$WPFS_BIN/$p" "$img/$p"
done
export WPFS_IMAGE_BINDIR="$img"

# --- entrypoint
ok "entrypoint.sh is valid sh" sh -n "$ep"
out=$(sh "$ep" llfs --help 2>&1)
is "$?" 0 "entrypoint llfs --help exits 0"
ok "entrypoint llfs runs llfs" grep -q '^usage: llfs' <<<"$out"
if [ -x "$img/hlfs" ]; then
  ok "entrypoint hlfs runs hlfs" sh -c "sh '$ep' hlfs --help | grep -q '^usage: hlfs'"
fi
sh "$ep" >/dev/null 2>&1
is "$?" 64 "entrypoint without a program exits 64"
sh "$ep" bogus >/dev/null 2>&1
is "$?" 64 "entrypoint with an unknown program exits 64"
sh "$ep" --help >/dev/null 2>&1
is "$?" 0 "entrypoint --help exits 0"
is "$(sh "$ep" wpfs-url canon 'HTTP://Example.COM:80/a/../b' 2>&1)" "http://example.com/b" \
  "entrypoint wpfs-url runs the tool"
ok "entrypoint wpfs runs the command-line client" \
  sh -c "sh '$ep' wpfs --help 2>&1 | grep -q '^usage: wpfs '"
ok "entrypoint wpfs-discover runs the crawler" \
  sh -c "sh '$ep' wpfs-discover --help 2>&1 | grep -q '^usage: wpfs-discover '"
is "$(WPFS_OUT=/out sh "$ep" wpfs-discover --print-config | jq -r .out)" /out \
  "...with its WPFS_* settings (discover.yaml's ConfigMap)"

# A member's own gateway token (discover.yaml: the Secret wpfs-discover-tokens
# mounted at WPFS_MEMBER_TOKENS, a file per member named like its pod): the
# entrypoint picks the file of WPFS_MEMBER. A stand-in wpfs-discover prints
# the environment it was given.
tok=$T_DIR/tokens
mkdir -p "$tok" "$T_DIR/echo"
printf 'token-of-0\n' >"$tok/wpfs-discover-0"
printf 'token-of-1\n' >"$tok/wpfs-discover-1"
: >"$tok/wpfs-discover-2"
printf '#!/bin/sh\necho "$WPFS_TOKEN ${WPFS_MEMBER_TOKENS:-unset}"\n' >"$T_DIR/echo/wpfs-discover"
chmod +x "$T_DIR/echo/wpfs-discover"
member_ep() {  # MEMBER: the entrypoint run as that member, the stand-in crawler
  WPFS_IMAGE_BINDIR=$T_DIR/echo WPFS_TOKEN=shared WPFS_MEMBER=$1 WPFS_MEMBER_TOKENS=$tok \
    sh "$ep" wpfs-discover 2>"$T_DIR/member.err"
}
is "$(member_ep wpfs-discover-0)" "token-of-0 unset" "entrypoint: member wpfs-discover-0 gets its own token"
is "$(member_ep wpfs-discover-1)" "token-of-1 unset" "...and wpfs-discover-1 its own (not a shared WPFS_TOKEN)"
member_ep wpfs-discover-3 >/dev/null
is "$?" 78 "entrypoint: a member without a token file does not start (exit 78)"
ok "...saying whose token is missing" grep -q "no gateway token for member wpfs-discover-3" "$T_DIR/member.err"
member_ep wpfs-discover-2 >/dev/null
is "$?" 78 "entrypoint: an empty token file (the Secret as shipped) does not start"
member_ep ../wpfs-discover-0 >/dev/null
is "$?" 78 "entrypoint: a member name with a path in it is refused"
is "$(WPFS_IMAGE_BINDIR=$T_DIR/echo WPFS_TOKEN=solo sh "$ep" wpfs-discover)" "solo unset" \
  "entrypoint: a crawler that is no member keeps its WPFS_TOKEN"
if [ -x "$img/wpfs-discover" ]; then
  is "$(WPFS_MEMBER=wpfs-discover-1 WPFS_MEMBER_TOKENS=$tok sh "$ep" wpfs-discover --print-config | jq -r '.member + " " + .token')" \
    "wpfs-discover-1 (redacted)" "entrypoint: the crawler runs as the member, with a token"
fi

# --- healthcheck against an llfs on a free port
port=$(freeport)
bg llfs sh "$ep" llfs --listen-port "$port"
llfs_pid=$BG_PID
wait_for 10 "$img/wpfs-healthcheck" "$port" || bail "llfs did not start"
is "$(cat /proc/$llfs_pid/comm)" "llfs" "the entrypoint execs the program (it owns the PID the runtime signals)"
ok "healthcheck PORT: healthy" "$img/wpfs-healthcheck" "$port"
ok "healthcheck 127.0.0.1:PORT /readyz: ready" "$img/wpfs-healthcheck" "127.0.0.1:$port" /readyz
"$img/wpfs-healthcheck" "$port" /nope >/dev/null 2>&1
is "$?" 1 "healthcheck: a 404 is unhealthy"
"$img/wpfs-healthcheck" "$(freeport)" >/dev/null 2>&1
is "$?" 1 "healthcheck: nothing listening is unhealthy"
"$img/wpfs-healthcheck" nonsense >/dev/null 2>&1
is "$?" 2 "healthcheck: a bad argument exits 2"
mkdir -p "$T_DIR/proc"
hex=$(printf '%04X' "$port")
{ head -1 /proc/net/tcp; grep -E "^ *[0-9]+: [0-9A-F]{8}:$hex [0-9A-F]{8}:0000 0A " /proc/net/tcp; } >"$T_DIR/proc/tcp"
ok "healthcheck without a port finds the listening socket (/proc/net/tcp)" \
  env WPFS_HEALTHCHECK_PROC="$T_DIR/proc" "$img/wpfs-healthcheck"
kill -TERM "$llfs_pid"
for _ in $(seq 100); do kill -0 "$llfs_pid" 2>/dev/null || break; sleep 0.1; done
ok "llfs stops on SIGTERM" sh -c "! kill -0 $llfs_pid 2>/dev/null"

# --- Redis with the image's configuration; only its data directory (/data,
# the volume in the image and the StatefulSet) moves to the test's directory.
rport=$(freeport)
mkdir -p "$T_DIR/redis"
ok "redis.conf keeps its data in /data" grep -qx 'dir /data' deploy/k8s/config/redis.conf
sed "s|^dir /data\$|dir $T_DIR/redis|" deploy/k8s/config/redis.conf >"$T_DIR/redis.conf"
redis_up() {
  bg redis redis-server "$T_DIR/redis.conf" --port "$rport" --bind 127.0.0.1 --maxmemory 64mb
  REDIS_PID=$BG_PID
  wait_for 10 redis-cli -p "$rport" ping
}
ok "redis-server accepts the configuration" redis_up
is "$(redis-cli -p "$rport" config get appendonly | tail -1)" yes "appendonly yes"
is "$(redis-cli -p "$rport" config get maxmemory-policy | tail -1)" noeviction "maxmemory-policy noeviction"
is "$(redis-cli -p "$rport" config get save | tail -1)" "" "no RDB snapshots"
is "$(zset_index_encoding "$rport")" skiplist "a 200-site due index is a skiplist, not a listpack scanned at every write"
is "$(zset_encoding "$rport" 100 200)" listpack "a queue of 100 URLs of 200 bytes stays a listpack"
redis-cli -p "$rport" set wpfs:deploy:probe accepted >/dev/null
kill -TERM "$REDIS_PID" 2>/dev/null
for _ in $(seq 100); do kill -0 "$REDIS_PID" 2>/dev/null || break; sleep 0.1; done
ok "the AOF is on disk" test -d "$T_DIR/redis/appendonlydir"
ok "redis-server restarts on its AOF" redis_up
is "$(redis-cli -p "$rport" get wpfs:deploy:probe)" accepted "a write survives the restart"
kill -TERM "$REDIS_PID" 2>/dev/null

# --- the page cache's Redis with the image's redis-cache.conf: bounded,
# evicting, persisting nothing (the data directory stays empty).
cport=$(freeport)
mkdir -p "$T_DIR/cache"
sed "s|^dir /tmp\$|dir $T_DIR/cache|" deploy/k8s/config/redis-cache.conf >"$T_DIR/redis-cache.conf"
bg redis-cache redis-server "$T_DIR/redis-cache.conf" --port "$cport" --bind 127.0.0.1
CACHE_PID=$BG_PID
ok "redis-server accepts the page cache's configuration" wait_for 10 redis-cli -p "$cport" ping
is "$(grep -E '^port ' deploy/k8s/config/redis-cache.conf)" "port 6380" "the page cache listens on 6380 (the state on 6379)"
is "$(redis-cli -p "$cport" config get maxmemory-policy | tail -1)" allkeys-lru "page cache: maxmemory-policy allkeys-lru"
cmp_ge "$(redis-cli -p "$cport" config get maxmemory | tail -1)" 1048576 "page cache: maxmemory set"
is "$(redis-cli -p "$cport" config get appendonly | tail -1)/$(redis-cli -p "$cport" config get save | tail -1)" \
  "no/" "page cache: no AOF, no snapshots"
redis-cli -p "$cport" set wpfs:deploy:probe cached >/dev/null
kill -TERM "$CACHE_PID" 2>/dev/null
for _ in $(seq 100); do kill -0 "$CACHE_PID" 2>/dev/null || break; sleep 0.1; done
is "$(ls -A "$T_DIR/cache")" "" "page cache: nothing written to disk"

# --- the crawls' coordination Redis with the image's redis-coord.conf:
# AOF on, never evicting; a lease written survives a restart.
kport=$(freeport)
mkdir -p "$T_DIR/coord"
sed "s|^dir /data\$|dir $T_DIR/coord|" deploy/k8s/config/redis-coord.conf >"$T_DIR/redis-coord.conf"
coord_up() {
  bg redis-coord redis-server "$T_DIR/redis-coord.conf" --port "$kport" --bind 127.0.0.1
  COORD_PID=$BG_PID
  wait_for 10 redis-cli -p "$kport" ping
}
ok "redis-server accepts the coordination Redis's configuration" coord_up
is "$(grep -E '^port ' deploy/k8s/config/redis-coord.conf)" "port 6381" "coordination: listens on 6381"
is "$(redis-cli -p "$kport" config get appendonly | tail -1)/$(redis-cli -p "$kport" config get maxmemory-policy | tail -1)" \
  "yes/noeviction" "coordination: AOF on, never evicts"
redis-cli -p "$kport" set 'wc:{deploy}:lease:0' member-0 >/dev/null
kill -TERM "$COORD_PID" 2>/dev/null
for _ in $(seq 100); do kill -0 "$COORD_PID" 2>/dev/null || break; sleep 0.1; done
ok "coordination: restarts on its AOF" coord_up
is "$(redis-cli -p "$kport" get 'wc:{deploy}:lease:0')" member-0 "coordination: a lease survives the restart"
kill -TERM "$COORD_PID" 2>/dev/null

# --- the stack in a pod-like network namespace
if ! command -v ip >/dev/null || ! unshare -n -m true 2>/dev/null; then
  echo "# no network namespaces here (unshare -n -m, ip): the wired stack is not run"
  done_testing
  exit
fi
if [ ! -x "$img/hlfs" ]; then
  echo "# bin/hlfs not built: the wired stack is not run"
  done_testing
  exit
fi
# The settings of the ConfigMaps kustomization.yaml makes (KEY=VALUE lines).
configmap() { grep -v '^#' "$1" | grep .; }
configmap deploy/k8s/config/llfs.env >"$T_DIR/llfs.env"
configmap deploy/k8s/config/hlfs.env >"$T_DIR/hlfs.env"
ok "ConfigMap wpfs-llfs read" test -s "$T_DIR/llfs.env"
ok "ConfigMap wpfs-hlfs read" test -s "$T_DIR/hlfs.env"
# One development key instead of the Secret's (empty) list.
printf '{"clients": [{"name": "deploytest", "token": "deploy-test-token-1234"}]}\n' >"$T_DIR/tokens.json"
# The state Redis set's pods by their stable names (the headless Service),
# each on an address of its own as in a cluster.
{
  printf '127.0.0.1 localhost wpfs-redis-cache wpfs-llfs wpfs-hlfs\n::1 localhost\n'
  for k in 0 1 2; do printf '127.0.1.%d wpfs-redis-%d.wpfs-redis\n' $((k + 1)) "$k"; done
} >"$T_DIR/hosts"
for k in 0 1 2; do
  mkdir -p "$T_DIR/pod-redis-$k"
  sed "s|^dir /data\$|dir $T_DIR/pod-redis-$k|" deploy/k8s/config/redis.conf >"$T_DIR/pod-redis-$k.conf"
done
# The set's environment, as the StatefulSet gives it (WPFS_REDIS_SELF is
# made from the pod's name there).
WPFS_REDIS_HOSTS=$(node -e '
  const Y = require("yaml"), fs = require("fs");
  for (const d of Y.parseAllDocuments(fs.readFileSync("deploy/k8s/redis.yaml", "utf8"), { version: "1.1" })) {
    const o = d.toJS();
    if (o && o.kind === "StatefulSet")
      console.log(o.spec.template.spec.containers[0].env.find(e => e.name === "WPFS_REDIS_HOSTS").value);
  }')
export WPFS_REDIS_HOSTS
ok "the StatefulSet names its three pods" test "$(wc -w <<<"$WPFS_REDIS_HOSTS")" = 3
sed "s|^dir /tmp\$|dir $T_DIR/cache|" deploy/k8s/config/redis-cache.conf >"$T_DIR/pod-redis-cache.conf"

cat >"$T_DIR/pod.sh" <<'POD'
set -u
pids=()
trap 'for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done; wait' EXIT
say() { echo "$@"; }
check() { local d=$1; shift; if "$@" >/dev/null 2>&1; then say "ok - $d"; else say "not ok - $d"; fi; }
until_ok() { local n=$1; shift; for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
ip link set lo up
mount --bind "$T_DIR/hosts" /etc/hosts
hc="$WPFS_IMAGE_BINDIR/wpfs-healthcheck"
for k in 0 1 2; do  # the state Redis set: a server and a sentinel per pod
  WPFS_REDIS_SELF=wpfs-redis-$k.wpfs-redis WPFS_SENTINEL_DIR="$T_DIR/pod-redis-$k" \
    WPFS_SENTINEL_BIND=127.0.1.$((k + 1)) WPFS_SENTINEL_DOWN_MS=1000 \
    sh deploy/k8s/config/redis-ha.sh "$T_DIR/pod-redis-$k.conf" --maxmemory 64mb \
      --bind 127.0.1.$((k + 1)) >"$T_DIR/pod-redis-$k.log" 2>&1 &
  pids+=($!)
  until_ok 100 redis-cli -h "wpfs-redis-$k.wpfs-redis" -p 6379 ping
  WPFS_REDIS_SELF=wpfs-redis-$k.wpfs-redis WPFS_SENTINEL_DIR="$T_DIR/pod-redis-$k" \
    WPFS_SENTINEL_BIND=127.0.1.$((k + 1)) WPFS_SENTINEL_DOWN_MS=1000 \
    sh deploy/k8s/config/redis-ha.sh sentinel >"$T_DIR/pod-sentinel-$k.log" 2>&1 &
  pids+=($!)
  until_ok 100 redis-cli -h "wpfs-redis-$k.wpfs-redis" -p 26379 ping
done
check "redis listens on 6379 as configured, in each pod of the set" \
  redis-cli -h wpfs-redis-2.wpfs-redis -p 6379 ping
check "the first pod is the master" sh -c "redis-cli -h wpfs-redis-0.wpfs-redis -p 6379 ROLE | head -1 | grep -qx master"
check "the others replicate it, by its name" sh -c "redis-cli -h wpfs-redis-2.wpfs-redis -p 6379 INFO replication | grep -q '^master_host:wpfs-redis-0.wpfs-redis'"
check "the sentinels name it by its name" sh -c "redis-cli -h wpfs-redis-1.wpfs-redis -p 26379 SENTINEL get-master-addr-by-name wpfs | head -1 | grep -qx wpfs-redis-0.wpfs-redis"
redis-server "$T_DIR/pod-redis-cache.conf" >"$T_DIR/pod-redis-cache.log" 2>&1 &
pids+=($!)
check "the page cache's redis listens on 6380 as configured" until_ok 100 redis-cli -h wpfs-redis-cache -p 6380 ping
mapfile -t llfs_env <"$T_DIR/llfs.env"
mapfile -t hlfs_env <"$T_DIR/hlfs.env"
env "${llfs_env[@]}" sh deploy/container/entrypoint.sh llfs >"$T_DIR/pod-llfs.log" 2>&1 &
pids+=($!)
llfs=$!
check "llfs answers /healthz on its default port 8081" until_ok 100 "$hc" 8081
# Only redis and llfs listen here: the port-less healthcheck must find llfs.
check "the image's HEALTHCHECK (no arguments) finds llfs" "$hc"
env "${hlfs_env[@]}" WPFS_HLFS_TOKENS_FILE="$T_DIR/tokens.json" WPFS_HLFS_REPLICA=wpfs-hlfs-test \
  sh deploy/container/entrypoint.sh hlfs >"$T_DIR/pod-hlfs.log" 2>&1 &
pids+=($!)
hlfs=$!
check "hlfs answers /healthz on its default port 8080" until_ok 100 "$hc" 8080
check "hlfs /readyz: Redis (through the sentinels) and llfs reached by the names of the ConfigMap" until_ok 100 "$hc" 8080 /readyz
metric() { (exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 &&
  awk -v m="$1" '$1 == m { print $2 }' <&3); }
check "hlfs reaches the page cache's redis by its Service name" test "$(metric hlfs_page_cache_up)" = 1
check "llfs /readyz" "$hc" 8081 /readyz
status() {  # TOKEN: the status of GET /v1/stats with that key
  (exec 3<>/dev/tcp/127.0.0.1/8080 &&
    printf 'GET /v1/stats HTTP/1.0\r\nAuthorization: Bearer %s\r\n\r\n' "$1" >&3 &&
    head -1 <&3 | cut -d' ' -f2)
}
check "hlfs accepts the key of the tokens file" test "$(status deploy-test-token-1234)" = 200
check "hlfs refuses another key" test "$(status deploy-test-token-9999)" = 401
t0=$(date +%s)
kill -TERM "$hlfs" "$llfs"
wait "$hlfs"; h=$?
wait "$llfs"; l=$?
check "hlfs exits 0 on SIGTERM" test "$h" = 0
check "llfs exits 0 on SIGTERM" test "$l" = 0
check "both stop well within terminationGracePeriodSeconds" test $(( $(date +%s) - t0 )) -lt 15
POD
export T_DIR
unshare -n -m bash "$T_DIR/pod.sh" >"$T_DIR/pod.out" 2>&1
while IFS= read -r line; do
  case $line in
    "ok - "*) pass "${line#ok - }" ;;
    "not ok - "*) fail "${line#not ok - }" ;;
    *) echo "# $line" ;;
  esac
done <"$T_DIR/pod.out"
if grep -q '^not ok' "$T_DIR/pod.out"; then
  for f in pod-llfs pod-hlfs pod-redis-0 pod-sentinel-0 pod-redis-1 pod-redis-cache; do
    tail -5 "$T_DIR/$f.log" | sed "s/^/# $f: /"
  done
fi
done_testing
