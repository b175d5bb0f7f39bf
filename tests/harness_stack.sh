# The product's own services for end-to-end tests (sourced by tests/lib.sh).
#   start_llfs [ARGS...]      llfs on a free port, loopback allowed; sets LLFS_PORT,
#                             LLFS_URL, LLFS_PID (uses DNS_SERVER if start_dnsmasq ran);
#                             its secret is $WPFS_FETCHER_SECRET, sent as -H "$LLFS_AUTH"
#   start_hlfs NAME [ARGS...] one gateway replica on a free port against REDIS_PORT
#                             and LLFS_URL; sets HLFS_PORT, HLFS_URL, HLFS_PID and
#                             HLFS_PORT_<NAME>, HLFS_PID_<NAME>
#   gw METHOD PATH [BODY]     curl the last started gateway with $GW_TOKEN;
#                             prints the body; `gws` then prints the HTTP status
#   gw_results_all TOKEN N SECONDS  read and ack results until N arrived;
#                             prints them as JSON lines
#   results_len [CLIENT]      results published for CLIENT (default dev) on the
#                             state Redis (shard 0); results_ge N [CLIENT]: at least N
#   start_crawl_stack SITES CACHE_MAXMEMORY TOKEN  what a whole-crawl benchmark
#                             crawls through: dnsmasq for siteN.test, the state and
#                             page cache Redis, llfs, and gateway a with no delay
# The fetchers' shared secret: every llfs and hlfs a test starts reads it
# from the environment (WPFS_FETCHER_SECRET); a request of the test's own
# to llfs's routes sends it: curl -H "$LLFS_AUTH".
export WPFS_FETCHER_SECRET=${WPFS_FETCHER_SECRET:-wpfs-test-fetcher-secret-$$}
LLFS_AUTH="Authorization: Bearer $WPFS_FETCHER_SECRET"
start_llfs() {
  local pf="$T_DIR/llfs.port"
  local dns=()
  [ -n "${DNS_SERVER:-}" ] && dns=(--dns-servers "$DNS_SERVER")
  rm -f "$pf"
  bg llfs "$WPFS_BIN/llfs" --listen-port 0 --port-file "$pf" --allow-cidrs 127.0.0.0/8 \
    "${dns[@]}" "$@"
  LLFS_PID=$BG_PID
  wait_for 10 test -s "$pf" || { cat "$T_DIR/llfs.log" >&2; bail "llfs did not start"; }
  LLFS_PORT=$(cat "$pf")
  LLFS_URL="http://127.0.0.1:$LLFS_PORT"
}

start_hlfs() {
  local name=$1 pf="$T_DIR/hlfs-$1.port"
  shift
  rm -f "$pf"
  bg "hlfs-$name" "$WPFS_BIN/hlfs" --listen-port 0 --port-file "$pf" \
    --redis "127.0.0.1:$REDIS_PORT" --llfs "$LLFS_URL" --replica "$name" "$@"
  HLFS_PID=$BG_PID
  wait_for 10 test -s "$pf" || { cat "$T_DIR/hlfs-$name.log" >&2; bail "hlfs did not start"; }
  HLFS_PORT=$(cat "$pf")
  HLFS_URL="http://127.0.0.1:$HLFS_PORT"
  printf -v "HLFS_PORT_$name" '%s' "$HLFS_PORT"
  printf -v "HLFS_PID_$name" '%s' "$HLFS_PID"
  wait_for 10 curl -sf "$HLFS_URL/readyz" || bail "hlfs $name not ready"
}

gw() {
  local method=$1 path=$2 body=${3:-} out="$T_DIR/gw.out" args=()
  [ -n "${GW_TOKEN:-}" ] && args+=(-H "Authorization: Bearer $GW_TOKEN")
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
  curl -s -o "$out" -w '%{http_code}' -X "$method" "${args[@]}" \
    "${GW_BASE:-$HLFS_URL}$path" >"$T_DIR/gw.status"
  cat "$out"
}
gws() { cat "$T_DIR/gw.status"; }

gw_results_all() {
  local token=$1 want=$2 secs=$3 got=0 deadline
  deadline=$(( $(date +%s) + secs ))
  while [ "$got" -lt "$want" ] && [ "$(date +%s)" -lt "$deadline" ]; do
    local page ids
    page=$(curl -s -H "Authorization: Bearer $token" \
      "${GW_BASE:-$HLFS_URL}/v1/results?max=1000&wait_ms=1000")
    echo "$page" | jq -c '.results[] | del(.body_base64, .headers)'
    ids=$(echo "$page" | jq -c '{deliveries: [.results[].delivery]}')
    got=$((got + $(echo "$page" | jq '.results | length')))
    curl -s -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
      --data-binary "$ids" "${GW_BASE:-$HLFS_URL}/v1/results/ack" >/dev/null
  done
}

start_crawl_stack() {
  start_dnsmasq "$1"
  start_redis
  # the sorted-set limits the state Redis is deployed with
  redis-cli -p "$REDIS_PORT" CONFIG SET $(awk '/^zset-/ { print $1, $2 }' \
    "$WPFS_ROOT/deploy/k8s/config/redis.conf") >/dev/null
  start_redis_cache "$2"
  start_llfs --log-level warn
  start_hlfs a --token "$3" --min-delay-ms 0 --delay-factor 0 --log-level warn \
    --cache-redis "127.0.0.1:$CACHE_REDIS_PORT"
}

results_len() { redis-cli -p "$REDIS_PORT" XLEN "x:{0}${1:-dev}"; }
results_ge() { [ "$(results_len "${2:-}")" -ge "$1" ]; }
