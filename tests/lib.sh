# Shared harness for end-to-end tests (source it). Every server a test starts
# goes on a free port and is stopped by the EXIT trap, pass or fail.
#   ok COND-DESCRIPTION  /  is GOT WANT NAME  /  done_testing
# Servers: start_redis here; start_dnsmasq (tests/harness_dns.sh),
# start_testweb (tests/harness_web.sh), start_llfs and start_hlfs
# (tests/harness_stack.sh), sourced below.
set -u
: "${WPFS_BIN:?run through make test}" "${WPFS_ROOT:?run through make test}"
T_N=0
T_FAIL=0
T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-test.XXXXXX")
T_PIDS=()

t_cleanup() {
  local p
  for p in "${T_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${T_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  # A failed test shows what its services said last: a run elsewhere (CI)
  # leaves nothing else to read once T_DIR is gone.
  if [ "$T_FAIL" -gt 0 ]; then
    local f
    for f in "$T_DIR"/*.log; do
      [ -s "$f" ] || continue
      echo "# --- last lines of $(basename "$f")"
      tail -n "${T_DUMP_LINES:-25}" "$f" | cut -c1-400 | sed 's/^/#   /'
    done
  fi
  # Services report sanitizer findings (leaks at exit too) in their logs:
  # any of them fails the test, whatever its checks said.
  local bad
  bad=$(grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T_DIR"/*.log 2>/dev/null)
  if [ -n "$bad" ]; then
    echo "not ok - sanitizer report in $(echo "$bad" | xargs -n1 basename | tr '\n' ' ')"
    grep -hE -A20 'ERROR: (Address|Leak)Sanitizer|runtime error:' $bad | head -60 | sed 's/^/# /'
    [ "${T_KEEP:-0}" = 1 ] || rm -rf "$T_DIR"
    exit 1
  fi
  [ "${T_KEEP:-0}" = 1 ] || rm -rf "$T_DIR"
}
trap t_cleanup EXIT

pass() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
fail() { T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N - $*"; }
# ok "description" command... : passes when the command succeeds.
ok() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
# is GOT WANT description
is() {
  if [ "$1" = "$2" ]; then pass "$3"; else fail "$3 (got '$1', want '$2')"; fi
}
# cmp_ge GOT MIN description (integers)
cmp_ge() {
  if [ "$1" -ge "$2" ] 2>/dev/null; then pass "$3"; else fail "$3 (got '$1', want >= $2)"; fi
}
cmp_le() {
  if [ "$1" -le "$2" ] 2>/dev/null; then pass "$3"; else fail "$3 (got '$1', want <= $2)"; fi
}
done_testing() { echo "1..$T_N"; [ "$T_FAIL" -eq 0 ]; }

# zset_encoding PORT MEMBERS MEMBER_BYTES: the encoding Redis on PORT gives
# a sorted set of that shape, with scores like a due index's (milliseconds
# to the microsecond).
zset_encoding() {
  local k=wpfs:probe:zset i pad
  pad=$(printf '%*s' "$3" '' | tr ' ' x)
  for i in $(seq "$2"); do echo "ZADD $k 1764201600$i.125 ${pad:0:$(($3 - ${#i}))}$i"; done |
    redis-cli -p "$1" >/dev/null
  redis-cli -p "$1" OBJECT ENCODING "$k"
  redis-cli -p "$1" DEL "$k" >/dev/null
}
# a client's due index on 200 sites (lua/lib.lua's site_index)
zset_index_encoding() { zset_encoding "$1" 200 20; }
bail() { echo "Bail out! $*"; exit 1; }

# wait_for SECONDS command... : poll until the command succeeds.
wait_for() {
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -ge "$deadline" ] && return 1
    sleep 0.05
  done
}

# bg NAME command... : start a server in the background, logs in $T_DIR/NAME.log
bg() {
  local name=$1; shift
  "$@" >"$T_DIR/$name.log" 2>&1 &
  T_PIDS+=($!)
  BG_PID=$!
}

freeport() { "$WPFS_BIN/freeport" "${1:-1}"; }
# CPU time (user + system) used so far by processes, in milliseconds.
cpu_ms() {
  local p t=0
  for p in "$@"; do
    t=$((t + $(awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15) * 1000 / hz }' "/proc/$p/stat")))
  done
  echo "$t"
}

# start_redis: sets REDIS_PORT; a fresh, empty redis-server for this test.
start_redis() {
  local try
  for try in 1 2 3 4 5; do
    REDIS_PORT=$(freeport)
    bg redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' \
      --appendonly no --dir "$T_DIR" --logfile "" --protected-mode no
    REDIS_PID=$BG_PID
    if wait_for 5 redis-cli -p "$REDIS_PORT" ping; then
      return 0
    fi
    kill "$BG_PID" 2>/dev/null
  done
  bail "redis-server did not start"
}

# start_redis: sets REDIS_PORT, REDIS_PID.
# start_redis_cache MAXMEMORY: sets CACHE_REDIS_PORT, CACHE_REDIS_PID; a
# second, empty redis-server configured as the page cache is deployed:
# memory capped, least recently used keys evicted, nothing persisted.
start_redis_cache() {
  local try
  for try in 1 2 3 4 5; do
    CACHE_REDIS_PORT=$(freeport)
    bg redis-cache redis-server --port "$CACHE_REDIS_PORT" --bind 127.0.0.1 --save '' \
      --appendonly no --dir "$T_DIR" --logfile "" --protected-mode no \
      --maxmemory "$1" --maxmemory-policy allkeys-lru
    CACHE_REDIS_PID=$BG_PID
    if wait_for 5 redis-cli -p "$CACHE_REDIS_PORT" ping; then
      return 0
    fi
    kill "$BG_PID" 2>/dev/null
  done
  bail "redis-server (page cache) did not start"
}

# ---- API cases as tables ------------------------------------------------
# api_cases FN < TABLE: one request a line, checked as the line says (as
# nginx's tests list limit_req's cases), and one TAP line each:
#
#   STATUS TYPE FIELD | LABEL | ARGS...
#
# "FN ARGS..." makes the request: ARGS are expanded when the case runs, as
# on a command line ($vars, "$(...)", quotes). FN leaves the answer's
# status in API_STATUS and its body and head in the files API_BODY and
# API_HEAD (api_req does; API_LABEL holds LABEL meanwhile). The case passes
# when the status is STATUS and, unless "-", the body is a problem
# (Content-Type application/problem+json) of type urn:wpfs:problem:TYPE,
# and its .field is FIELD. "- - -" makes the request and checks nothing
# itself. A line
#
#   = WANT | LABEL | JQ
#
# checks one more thing of the answer before: jq -r JQ of its body is WANT.
# A line ending in " \" goes on on the next. Blank lines and lines
# starting with # are skipped; LABEL (never empty) and WANT hold no " | ",
# ARGS and JQ may.
api_cases() {
  local fn=$1 line head label rest st ty fd got want
  while IFS= read -r line; do
    while [[ $line == *' \' ]] && IFS= read -r rest; do
      line="${line% \\} ${rest#"${rest%%[![:space:]]*}"}"
    done
    line=${line#"${line%%[![:space:]]*}"}
    case $line in '' | '#'*) continue ;; esac
    head=${line%% | *} rest=${line#* | }
    label=${rest%% | *} rest=${rest#* | }
    if [[ $head == '='* ]]; then
      want=${head#=} want=${want# }
      is "$(jq -r "$rest" "$API_BODY" 2>/dev/null)" "$want" "$label"
      continue
    fi
    read -r st ty fd <<<"$head"
    # nothing of the last answer is left to pass a request that failed
    API_LABEL=$label API_STATUS= API_BODY=/dev/null API_HEAD=/dev/null
    eval "$fn $rest" </dev/null
    [ "$st" = - ] && [ "$ty" = - ] && [ "$fd" = - ] && continue
    got=$API_STATUS want=$st
    if [ "$ty" != - ]; then
      got+=" $(api_hdr Content-Type) $(jq -r '.type // "-"' "$API_BODY" 2>/dev/null)"
      want+=" application/problem+json urn:wpfs:problem:$ty"
    fi
    if [ "$fd" != - ]; then
      got+=" $(jq -r '.field // "-"' "$API_BODY" 2>/dev/null)"
      want+=" $fd"
    fi
    is "$got" "$want" "$label"
  done
}
# api_hdr NAME: a header of the last answer (the last of that name).
api_hdr() { tr -d '\r' <"$API_HEAD" | awk -v k="${1,,}" -F': ' 'tolower($1) == k { v = $2 } END { print v }'; }
# api_req [-H 'Name: value']... [-d BODY] METHOD URL: one request, for api_cases.
# A body is sent as JSON unless a -H gives its Content-Type.
api_req() {
  local args=() OPTIND=1 opt ctype=json
  while getopts 'H:d:' opt; do
    case $opt in
      H) args+=(-H "$OPTARG"); [[ ${OPTARG,,} == content-type:* ]] && ctype= ;;
      d) args+=(--data-binary "$OPTARG") ;;
      *) bail "api_req: bad option" ;;
    esac
  done
  shift $((OPTIND - 1))
  [ -n "$ctype" ] && [[ " ${args[*]} " == *" --data-binary "* ]] &&
    args+=(-H 'Content-Type: application/json')
  API_BODY=$T_DIR/api.body API_HEAD=$T_DIR/api.head
  API_STATUS=$(curl -s -X "$1" -D "$API_HEAD" -o "$API_BODY" -w '%{http_code}' --max-time 30 \
    "${args[@]}" "$2")
}

# Servers of the test world, each in its own file.
for _h in "$WPFS_ROOT"/tests/harness_*.sh; do
  [ -f "$_h" ] && . "$_h"
done
unset _h

# Crawl-log lines a resume must replay: the complete lines of the log as it
# was at the kill ($1, a copy) after the checkpoint's byte offset, which
# the resumed crawler logs at info ($2, its log: "resumed: checkpoint at
# N bytes"). Prints "offset lines", or nothing when the log has no such line.
resume_expected() {
  local from
  from=$(grep -o 'resumed: checkpoint at [0-9]* bytes' "$2" | grep -o '[0-9]*' | head -1)
  [ -n "$from" ] || return 1
  echo "$from $(tail -c +"$((from + 1))" "$1" | wc -l)"
}

# test_certs DIR CN SAN: a throwaway CA (DIR/ca.pem) and a server key and
# certificate it signed (DIR/srv.key, DIR/srv.pem) for CN with
# subjectAltName SAN ("DNS:a.test,DNS:*.b.test"), valid two days.
test_certs() {
  local d=$1
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=wpfs-test-ca -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$2" \
    -keyout "$d/srv.key" -out "$d/srv.csr" 2>/dev/null &&
  printf 'subjectAltName=%s\n' "$3" >"$d/ext" &&
  openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
    -extfile "$d/ext" -out "$d/srv.pem" 2>/dev/null || bail "cannot make test certificates"
}

# start_nginx LOG_FORMAT CURL_ARGS... <<CONF (the http block's own lines)
# nginx for one test, its files in $T_DIR/nginx, each request logged in
# $T_DIR/nginx/access.log as LOG_FORMAT says (nginx variables, e.g.
# '$host $connection'). stdin: the servers, TLS and keep-alive lines of
# the http block. Waits until curl CURL_ARGS (a URL and its options)
# fetches.
start_nginx() {
  local fmt=$1 n=$T_DIR/nginx
  shift
  command -v nginx >/dev/null || bail "nginx is not installed (make deps)"
  mkdir -p "$n"
  {
    cat <<CONF
daemon off;
master_process off;
worker_processes 1;
error_log $n/error.log warn;
pid $n/nginx.pid;
events { worker_connections 64; }
http {
  log_format t '$fmt';
  access_log $n/access.log t;
  client_body_temp_path $n/body;
  proxy_temp_path $n/proxy;
  fastcgi_temp_path $n/fastcgi;
  uwsgi_temp_path $n/uwsgi;
  scgi_temp_path $n/scgi;
  default_type text/html;
CONF
    cat
    echo "}"
  } >"$T_DIR/nginx.conf"
  bg nginx nginx -e "$n/error.log" -p "$n" -c "$T_DIR/nginx.conf"
  wait_for 10 curl -sf -o /dev/null "$@" ||
    { cat "$T_DIR/nginx.log" "$n/error.log" >&2; bail "nginx did not start"; }
}

# first_result FILE [TOKEN]: read this client's results (bin/wpfs results,
# acknowledged) into FILE until there is one, for at most 10 s.
first_result() {
  local f=$1 tok=${2:-$TOKEN}
  : >"$f"
  for _ in $(seq 40); do
    WPFS_TOKEN=$tok "$WPFS_BIN/wpfs" --gateway "$HLFS_URL" results >>"$f" 2>/dev/null
    [ -s "$f" ] && return 0
    sleep 0.25
  done
  return 1
}
