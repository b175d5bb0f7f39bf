#!/bin/bash
# timeout: 120
# `make run` (deploy/local/run.sh) on free ports, its state in the test's
# directory: the banner comes only once the services answer /readyz, and
# the curl line it prints works; a service that cannot start (a token
# shorter than 8 characters) stops everything, named, exit status 1, no
# banner. Each service reads only its own environment (WPFS_HLFS_*,
# WPFS_LLFS_*): a value valid for the gateway never reaches the fetcher,
# and an unprefixed WPFS_<NAME> is reported, not read.
. "$WPFS_ROOT/tests/lib.sh"
RUN=$WPFS_ROOT/deploy/local/run.sh

# run NAME [VAR=VALUE...]: run.sh in the background on free ports; its
# stderr in $T_DIR/NAME.err; sets RUN_PID and GW_PORT
run() {
  local name=$1
  shift
  local ports
  ports=($(freeport 4))
  GW_PORT=${ports[0]}
  RUN_REDIS_PORT=${ports[2]}
  env WPFS_BIN="$WPFS_BIN" WPFS_STATE_DIR="$T_DIR/state-$name" WPFS_PORT="${ports[0]}" \
    WPFS_LLFS_PORT="${ports[1]}" WPFS_REDIS_PORT="${ports[2]}" WPFS_CACHE_REDIS_PORT="${ports[3]}" \
    "$@" setsid "$RUN" >"$T_DIR/$name.out" 2>"$T_DIR/$name.err" &
  RUN_PID=$!
  T_PIDS+=("$RUN_PID")
}
finished() { ! kill -0 "$RUN_PID" 2>/dev/null; }
stop_run() { kill -TERM "$RUN_PID" 2>/dev/null; wait_for 15 finished; }

# A token too short: hlfs refuses to start.
run bad WPFS_TOKEN=short
wait_for 20 finished
wait "$RUN_PID"
is "$?" 1 "hlfs cannot start: make run exits 1"
ok "and names hlfs" grep -q 'wpfs: hlfs did not start' "$T_DIR/bad.err"
ok "with the reason from its log" grep -q 'token' "$T_DIR/bad.err"
ok "no banner" sh -c "! grep -q 'gateway on' '$T_DIR/bad.err'"
ok "nothing left listening" sh -c "! curl -s -o /dev/null 127.0.0.1:$GW_PORT/healthz"

# A good one, with a setting of the gateway's that the fetcher must not
# see, and an unprefixed name that neither reads.
run good WPFS_TOKEN=good-token-1 WPFS_HLFS_MAX_REQUEST_BYTES=32m WPFS_MAX_REQUEST_BYTES=32m
wait_for 30 grep -q 'gateway on' "$T_DIR/good.err" || bail "no banner: $(tail -5 "$T_DIR/good.err")"
ok "the banner comes when the gateway is ready" curl -sf "127.0.0.1:$GW_PORT/readyz" -o /dev/null
ok "the fetcher started despite the gateway's 32m" sh -c "! grep -q 'llfs did not start' '$T_DIR/good.err'"
ok "the unprefixed name is reported by llfs" grep -q 'llfs: WPFS_MAX_REQUEST_BYTES is not read' "$T_DIR/good.err"
ok "and by hlfs" grep -q 'hlfs: WPFS_MAX_REQUEST_BYTES is not read' "$T_DIR/good.err"
try=$(sed -n "s/^try: *//p; /^  *-d /p" "$T_DIR/good.err" | tr -d '\\\n')
is "$(eval "$try" | jq -r .outcome)" ok "the curl line of the banner fetches a page"
is "$(zset_index_encoding "$RUN_REDIS_PORT")" skiplist "the state Redis keeps a 200-site due index as a skiplist"
stop_run
ok "SIGTERM stops it" finished
ok "and everything it started" sh -c "! curl -s -o /dev/null 127.0.0.1:$GW_PORT/healthz"

# The services themselves: each reads its own prefix only.
lt=$(WPFS_LLFS_TIMEOUT_MS=7s WPFS_HLFS_MAX_REQUEST_BYTES=32m "$WPFS_BIN/llfs" --print-config |
  jq -c '[.timeout_ms, .max_request_bytes]')
hl=$(WPFS_LLFS_MAX_REQUEST_BYTES=1k WPFS_HLFS_MAX_REQUEST_BYTES=32m "$WPFS_BIN/hlfs" --print-config |
  jq -r .max_request_bytes)
is "$(jq -r '.[0]' <<<"$lt")" 7000 "llfs reads WPFS_LLFS_TIMEOUT_MS"
ok "llfs ignores WPFS_HLFS_MAX_REQUEST_BYTES" test "$(jq -r '.[1]' <<<"$lt")" != 33554432
is "$hl" 33554432 "hlfs reads WPFS_HLFS_MAX_REQUEST_BYTES, not the fetcher's"
ok "--help names the prefixed variables" sh -c \
  "'$WPFS_BIN/llfs' --help | grep -q WPFS_LLFS_TIMEOUT_MS && '$WPFS_BIN/hlfs' --help | grep -q WPFS_HLFS_REDIS"
done_testing
