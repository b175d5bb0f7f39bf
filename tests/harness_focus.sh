# The focused crawler on testweb's topical web (sourced by tests/lib.sh).
#   focus_seeds N FILE      N seed URLs into FILE: the home pages of the first
#                           sites about neither the target (topic 0) nor the
#                           bridge (topic 1); sets FOCUS_SEED_SITES
#                           ("site3.test,..." for /topics/simulate)
#   focus_gateway NAME TOKEN [ARGS...]  a gateway with an empty state and page
#                           cache: the previous one stopped, redis emptied, a
#                           new replica NAME started (so each crawl of a
#                           comparison fetches every page itself)
#   focus_harvest [AT]      testweb's harvest of what it was asked (JSON)
#   focus_simulate STRATEGY MAX [AT]  a crawl simulated on the link graph
#                           from the seeds (bfs or oracle; JSON)
#   focus_at JSON N         harvest at N pages in such an answer (or 0)
focus_seeds() {
  local n=$1 file=$2
  curl -s "$TESTWEB_CTL/topics/labels" | awk -v n="$n" '$2 == "/" && $3 > 1 && k < n {
    print $1; k++ }' >"$T_DIR/focus-seed-sites"
  [ "$(wc -l <"$T_DIR/focus-seed-sites")" -eq "$n" ] || bail "not $n seed sites in the topical web"
  sed "s|.*|http://&:$TESTWEB_PORT/|" "$T_DIR/focus-seed-sites" >"$file"
  FOCUS_SEED_SITES=$(paste -sd, "$T_DIR/focus-seed-sites")
}

focus_gateway() {
  local name=$1 token=$2
  shift 2
  if [ -n "${HLFS_PID:-}" ]; then
    kill "$HLFS_PID" 2>/dev/null
    wait "$HLFS_PID" 2>/dev/null
  fi
  redis-cli -p "$REDIS_PORT" flushall >/dev/null || bail "redis flushall failed"
  start_hlfs "$name" --token "$token" --min-delay-ms 0 --delay-factor 0 --log-level warn "$@"
}

focus_harvest() {
  curl -s "$TESTWEB_CTL/topics/harvest?at=${1:-100,200,500,1000,2000}"
}

focus_simulate() {
  curl -s "$TESTWEB_CTL/topics/simulate?strategy=$1&max=$2&seeds=$FOCUS_SEED_SITES&at=${3:-100,200,500,1000,2000}"
}

focus_at() {
  jq -r --arg n "$2" '.at[$n] // 0' <<<"$1"
}
