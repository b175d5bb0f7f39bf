#!/bin/bash
# timeout: 120
# `make run` (deploy/local/run.sh) on free ports, its state in the test's
# directory: the banner comes only once the services answer /readyz, and
# the curl line it prints works; a service that cannot start (a token
# shorter than 8 characters) stops everything, named, exit status 1, no
# banner. Each service reads only its own environment (WPFS_HLFS_*,
# WPFS_LLFS_*): a value valid for the gateway never reaches the fetcher,
# and an unprefixed WPFS_<NAME> is reported, not read; make run's own
# knobs (WPFS_TOKEN, WPFS_ALLOW_CIDRS, WPFS_MIN_DELAY_MS, ...) take effect
# and are not reported, and only what is really ignored is.
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

# make run's own knobs reach their service as flags and are reported by
# no one; a service's own variable that a knob overrides, and the
# addresses make run chooses itself, are reported as not read.
run knobs WPFS_TOKEN=knob-token-1 WPFS_ALLOW_CIDRS=127.0.0.0/8 WPFS_MIN_DELAY_MS=0 \
  WPFS_DELAY_FACTOR=0 WPFS_USER_AGENT=knob-agent WPFS_HLFS_TOKEN=other-token-1 \
  WPFS_HLFS_REDIS=127.0.0.1:1
wait_for 30 grep -q 'gateway on' "$T_DIR/knobs.err" || bail "no banner: $(tail -5 "$T_DIR/knobs.err")"
for v in WPFS_TOKEN WPFS_ALLOW_CIDRS WPFS_MIN_DELAY_MS WPFS_DELAY_FACTOR WPFS_USER_AGENT; do
  ok "$v is not reported as not read" sh -c "! grep -q '$v is not read' '$T_DIR/knobs.err'"
done
is "$(grep -c 'is not read' "$T_DIR/knobs.err")" 2 "two settings reported as not read"
ok "WPFS_HLFS_TOKEN, which WPFS_TOKEN overrides" grep -q \
  "wpfs: WPFS_HLFS_TOKEN is not read: make run's WPFS_TOKEN is used instead" "$T_DIR/knobs.err"
ok "WPFS_HLFS_REDIS: make run starts its own" grep -q \
  'wpfs: WPFS_HLFS_REDIS is not read: make run starts its own' "$T_DIR/knobs.err"
is "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer knob-token-1' \
  "127.0.0.1:$GW_PORT/v1/results?wait_ms=0")" 200 "WPFS_TOKEN is the gateway's key"
args=$(ps -o args= --ppid "$RUN_PID")
ok "WPFS_MIN_DELAY_MS, WPFS_DELAY_FACTOR and WPFS_USER_AGENT reach hlfs" grep -q -- \
  '--user-agent knob-agent --min-delay-ms 0 --delay-factor 0' <<<"$args"
ok "WPFS_ALLOW_CIDRS reaches llfs" grep -q -- "llfs --listen-port [0-9]* --allow-cidrs 127.0.0.0/8" <<<"$args"
stop_run

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
